//! Shardy's shardings (the `sdy` MLIR dialect of openxla/shardy), as JAX
//! writes them in StableHLO, and their conversion to [`HloSharding`] as
//! XLA's Shardy export (`xla/service/spmd/shardy/`) converts them.
//!
//! - [`parse_mesh`]: `sdy.mesh @mesh = <["x"=2, "y"=4]>`, `<["x"=2, "y"=2],
//!   device_ids=[3, 2, 1, 0]>`, `#sdy.mesh<[], device_ids=[5]>` (a maximal
//!   mesh);
//! - [`ShardySharding`]: `#sdy.sharding<@mesh, [{"x"}, {"y", ?}],
//!   replicated={"z"}, unreduced={"w"}>` (dimension shardings open with `?`,
//!   priorities `p1`, sub-axes `"x":(1)2`, an inline `mesh<[...]>`), and
//!   [`parse_sharding_per_value`] for `#sdy.sharding_per_value<[<...>, ...]>`;
//! - [`ShardySharding::to_hlo_sharding`]: the `HloSharding` XLA gives it
//!   (open dimensions and priorities do not change it; replicated axes are
//!   the ones no dimension uses);
//! - [`from_hlo_sharding`]: back, over a given mesh: the Shardy sharding of
//!   whole mesh axes that XLA converts to the given `HloSharding`.
//!
//! ```
//! use xla_shape::sharding::shardy;
//! let (name, mesh) = shardy::parse_mesh(r#"sdy.mesh @mesh = <["x"=2, "y"=4]>"#)?;
//! assert_eq!(name.as_deref(), Some("mesh"));
//! let s: shardy::ShardySharding = r#"#sdy.sharding<@mesh, [{"x"}, {}]>"#.parse()?;
//! let hlo = s.to_hlo_sharding(&mesh)?;
//! assert_eq!(hlo.to_string(), "{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
//! let back = shardy::from_hlo_sharding(&hlo, &mesh, "mesh")?;
//! assert_eq!(back.to_string(), r#"#sdy.sharding<@mesh, [{"x"}, {}]>"#);
//! # Ok::<(), xla_shape::Error>(())
//! ```

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

use super::named::{AxisRef, DimensionSharding, Mesh, MeshDevices, NamedSharding};
use super::strings::{unescape_mlir, write_axis_list};
use super::{HloSharding, Kind, OpShardingType};

/// An axis of a Shardy sharding: a mesh axis by name, or its sub-axis
/// `"x":(pre_size)size`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShardyAxis {
    /// The mesh axis name.
    pub name: String,
    /// `(pre_size, size)` of a sub-axis.
    pub sub: Option<(i64, i64)>,
}

/// The sharding of one dimension: its axes, major to minor, whether it is
/// open (`?`), and its priority (`p1`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShardyDim {
    /// The axes.
    pub axes: Vec<ShardyAxis>,
    /// Whether propagation may add axes.
    pub open: bool,
    /// The priority, if written.
    pub priority: Option<i64>,
}

/// Where a sharding's mesh is: a named `sdy.mesh`, or written inline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MeshRef {
    /// `@name`.
    Name(String),
    /// `mesh<[...]>`.
    Inline(Mesh),
}

/// A Shardy `#sdy.sharding<...>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShardySharding {
    /// The mesh.
    pub mesh: MeshRef,
    /// One per array dimension.
    pub dims: Vec<ShardyDim>,
    /// Axes over which the array is explicitly replicated.
    pub replicated: Vec<ShardyAxis>,
    /// Axes over which the array is unreduced.
    pub unreduced: Vec<ShardyAxis>,
}

// ------------------------------------------------------------------ parsing

/// A cursor over MLIR attribute text.
struct Cursor<'a> {
    s: &'a [u8],
    pos: usize,
    text: &'a str,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor {
            s: text.as_bytes(),
            pos: 0,
            text,
        }
    }

    fn ws(&mut self) {
        while self
            .s
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn error(&self, what: &str) -> Error {
        Error::new(
            crate::ErrorKind::Parse,
            format!(
                "invalid Shardy text at byte {}: expected {what} in {:?}",
                self.pos,
                shorten(self.text)
            ),
        )
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, lit: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(lit.as_bytes()) {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, lit: &str) -> Result<()> {
        if self.eat(lit) {
            Ok(())
        } else {
            Err(self.error(&format!("`{lit}`")))
        }
    }

    fn int(&mut self) -> Result<i64> {
        self.ws();
        let start = self.pos;
        if self.s.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        while self.s.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| {
                self.pos = start;
                self.error("an integer")
            })
    }

    /// A `"quoted"` string, with MLIR's escapes ([`unescape_mlir`]).
    fn string(&mut self) -> Result<String> {
        self.ws();
        if self.s.get(self.pos) != Some(&b'"') {
            return Err(self.error("a quoted name"));
        }
        let mut i = self.pos + 1;
        loop {
            match self.s.get(i) {
                None => return Err(self.error("the end of a quoted name")),
                Some(b'"') => break,
                Some(b'\\') if i + 1 >= self.s.len() => {
                    return Err(self.error("an escaped character"));
                }
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
            }
        }
        let out = unescape_mlir(&self.s[self.pos + 1..i]);
        self.pos = i + 1;
        String::from_utf8(out).map_err(|_| self.error("a UTF-8 name"))
    }

    /// An identifier after `@`: MLIR's `[a-zA-Z_][a-zA-Z0-9_$.-]*` or a
    /// quoted string.
    fn symbol(&mut self) -> Result<String> {
        self.ws();
        if self.s.get(self.pos) == Some(&b'"') {
            return self.string();
        }
        let start = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'))
        {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error("a mesh name"));
        }
        Ok(self.text[start..self.pos].to_owned())
    }

    fn done(&mut self) -> Result<()> {
        self.ws();
        if self.pos == self.s.len() {
            Ok(())
        } else {
            Err(self.error("the end of the text"))
        }
    }
}

fn shorten(s: &str) -> String {
    if s.len() <= 120 {
        return s.to_owned();
    }
    let mut end = 120;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// `<["x"=2, "y"=4], device_ids=[...]>`, from `<`.
fn mesh_body(c: &mut Cursor<'_>) -> Result<Mesh> {
    c.expect("<")?;
    c.expect("[")?;
    let mut axes = Vec::new();
    if !c.eat("]") {
        loop {
            let name = c.string()?;
            c.expect("=")?;
            let size = c.int()?;
            axes.push((name, size));
            if c.eat("]") {
                break;
            }
            c.expect(",")?;
        }
    }
    let mut ids = None;
    if c.eat(",") {
        c.expect("device_ids")?;
        c.expect("=")?;
        c.expect("[")?;
        let mut v = Vec::new();
        if !c.eat("]") {
            loop {
                v.push(c.int()?);
                if c.eat("]") {
                    break;
                }
                c.expect(",")?;
            }
        }
        ids = Some(v);
    }
    c.expect(">")?;
    if axes.iter().any(|a| a.1 <= 0) {
        return Err(Error::invalid_argument(
            "a Shardy mesh axis size must be positive",
        ));
    }
    match ids {
        None => Mesh::new(axes),
        Some(v) if axes.is_empty() => match v.as_slice() {
            [] => Mesh::new(axes),
            [d] => Ok(Mesh::maximal(*d)),
            _ => Err(Error::invalid_argument(
                "a Shardy mesh without axes has at most one device id",
            )),
        },
        // Shardy accepts the identity written out; it is the iota mesh.
        Some(v) if v.iter().enumerate().all(|(i, &d)| d == i as i64) => Mesh::new(axes),
        Some(v) => Mesh::with_devices(axes, MeshDevices::List(v)),
    }
}

/// A Shardy mesh: `sdy.mesh @name = <[...]>`, `#sdy.mesh<[...]>` or
/// `<[...]>`, with its name when written.
///
/// # Errors
///
/// [`ErrorKind::Parse`](crate::ErrorKind::Parse) for text that is not a
/// mesh; XLA's `Mesh` messages for a mesh XLA refuses (duplicate axis
/// names, device ids that are not a permutation or are the identity).
pub fn parse_mesh(text: &str) -> Result<(Option<String>, Mesh)> {
    let mut c = Cursor::new(text);
    let mut name = None;
    if c.eat("sdy.mesh") {
        c.expect("@")?;
        name = Some(c.symbol()?);
        c.expect("=")?;
        if c.eat("#sdy.mesh") {}
    } else if c.eat("#sdy.mesh") {
    }
    let mesh = mesh_body(&mut c)?;
    // `sdy.mesh` ops may carry an attribute dictionary after the mesh.
    if c.peek() == Some(b'{') {
        let mut depth = 0usize;
        while let Some(ch) = c.s.get(c.pos) {
            c.pos += 1;
            match ch {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    c.done()?;
    Ok((name, mesh))
}

fn axis(c: &mut Cursor<'_>) -> Result<ShardyAxis> {
    let name = c.string()?;
    let mut sub = None;
    if c.eat(":") {
        c.expect("(")?;
        let pre = c.int()?;
        c.expect(")")?;
        let size = c.int()?;
        sub = Some((pre, size));
    }
    Ok(ShardyAxis { name, sub })
}

fn axis_list(c: &mut Cursor<'_>) -> Result<Vec<ShardyAxis>> {
    c.expect("{")?;
    let mut out = Vec::new();
    if c.eat("}") {
        return Ok(out);
    }
    loop {
        out.push(axis(c)?);
        if c.eat("}") {
            return Ok(out);
        }
        c.expect(",")?;
    }
}

fn dim(c: &mut Cursor<'_>) -> Result<ShardyDim> {
    c.expect("{")?;
    let mut d = ShardyDim {
        axes: Vec::new(),
        open: false,
        priority: None,
    };
    if !c.eat("}") {
        loop {
            if c.eat("?") {
                d.open = true;
                c.expect("}")?;
                break;
            }
            d.axes.push(axis(c)?);
            if c.eat("}") {
                break;
            }
            c.expect(",")?;
        }
    }
    if c.peek() == Some(b'p') {
        c.pos += 1;
        d.priority = Some(c.int()?);
    }
    Ok(d)
}

/// The body of a sharding from its `<`: `<@mesh, [dims], replicated=...>`.
fn sharding_body(c: &mut Cursor<'_>) -> Result<ShardySharding> {
    c.expect("<")?;
    let mesh = if c.eat("@") {
        MeshRef::Name(c.symbol()?)
    } else if c.eat("mesh") {
        MeshRef::Inline(mesh_body(c)?)
    } else {
        return Err(c.error("`@mesh` or `mesh<...>`"));
    };
    c.expect(",")?;
    c.expect("[")?;
    let mut dims = Vec::new();
    if !c.eat("]") {
        loop {
            dims.push(dim(c)?);
            if c.eat("]") {
                break;
            }
            c.expect(",")?;
        }
    }
    let mut s = ShardySharding {
        mesh,
        dims,
        replicated: Vec::new(),
        unreduced: Vec::new(),
    };
    while c.eat(",") {
        if c.eat("replicated") {
            c.expect("=")?;
            s.replicated = axis_list(c)?;
        } else if c.eat("unreduced") {
            c.expect("=")?;
            s.unreduced = axis_list(c)?;
        } else {
            return Err(c.error("`replicated=` or `unreduced=`"));
        }
    }
    c.expect(">")?;
    Ok(s)
}

impl FromStr for ShardySharding {
    type Err = Error;

    /// `#sdy.sharding<@mesh, [...]>` (the `#sdy.sharding` may be left out:
    /// `<@mesh, [...]>`, as in `sharding_per_value`).
    fn from_str(text: &str) -> Result<Self> {
        let mut c = Cursor::new(text);
        let _ = c.eat("#sdy.sharding");
        let s = sharding_body(&mut c)?;
        c.done()?;
        Ok(s)
    }
}

/// `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`: one sharding per
/// result.
///
/// # Errors
///
/// [`ErrorKind::Parse`](crate::ErrorKind::Parse) for other text.
pub fn parse_sharding_per_value(text: &str) -> Result<Vec<ShardySharding>> {
    let mut c = Cursor::new(text);
    c.expect("#sdy.sharding_per_value")?;
    c.expect("<")?;
    c.expect("[")?;
    let mut out = Vec::new();
    if !c.eat("]") {
        loop {
            out.push(sharding_body(&mut c)?);
            if c.eat("]") {
                break;
            }
            c.expect(",")?;
        }
    }
    c.expect(">")?;
    c.done()?;
    Ok(out)
}

// ----------------------------------------------------------------- printing

impl fmt::Display for ShardyAxis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "\"{}\"",
            self.name.replace('\\', "\\\\").replace('"', "\\\"")
        )?;
        if let Some((p, s)) = self.sub {
            write!(f, ":({p}){s}")?;
        }
        Ok(())
    }
}

fn write_axes(f: &mut fmt::Formatter<'_>, axes: &[ShardyAxis]) -> fmt::Result {
    write_axis_list(f, axes, false, |f, a| write!(f, "{a}"))
}

/// Shardy's printed form of a mesh: `<["x"=2, "y"=4]>`.
pub struct DisplayMesh<'a>(pub &'a Mesh);

impl fmt::Display for DisplayMesh<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mesh = self.0;
        f.write_str("<[")?;
        for (i, (name, size)) in mesh.axes().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "\"{name}\"={size}")?;
        }
        f.write_str("]")?;
        let ids = match (mesh.maximal_device(), mesh.devices()) {
            (Some(d), _) => Some(vec![d]),
            (None, MeshDevices::List(v)) => Some(v.clone()),
            (None, MeshDevices::IotaTransposed { .. }) => mesh.device_assignment().devices().ok(),
            _ => None,
        };
        if let Some(ids) = ids {
            f.write_str(", device_ids=[")?;
            for (i, d) in ids.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{d}")?;
            }
            f.write_str("]")?;
        }
        f.write_str(">")
    }
}

impl fmt::Display for ShardySharding {
    /// Shardy's printed form, `#sdy.sharding<@mesh, [{"x"}, {}]>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("#sdy.sharding<")?;
        match &self.mesh {
            MeshRef::Name(n) => write!(f, "@{n}")?,
            MeshRef::Inline(m) => write!(f, "mesh{}", DisplayMesh(m))?,
        }
        f.write_str(", [")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_axis_list(f, &d.axes, d.open, |f, a| write!(f, "{a}"))?;
            if let Some(p) = d.priority {
                write!(f, "p{p}")?;
            }
        }
        f.write_str("]")?;
        if !self.replicated.is_empty() {
            f.write_str(", replicated=")?;
            write_axes(f, &self.replicated)?;
        }
        if !self.unreduced.is_empty() {
            f.write_str(", unreduced=")?;
            write_axes(f, &self.unreduced)?;
        }
        f.write_str(">")
    }
}

// --------------------------------------------------------------- conversion

impl ShardySharding {
    /// The mesh this sharding names: its inline mesh, or `mesh` (the
    /// `sdy.mesh` its `@name` refers to).
    fn mesh_of<'a>(&'a self, mesh: &'a Mesh) -> &'a Mesh {
        match &self.mesh {
            MeshRef::Inline(m) => m,
            MeshRef::Name(_) => mesh,
        }
    }

    /// Shardy's verifier of a sharding (`verifyTensorShardingAttr` of
    /// openxla/shardy), with its messages, for an array of `rank`
    /// dimensions when given: known axes, none used twice, replicated and
    /// unreduced axes in mesh order, no mergeable neighbouring sub-axes, no
    /// priority on an empty closed dimension, rank 0 on a maximal mesh.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// with Shardy's message.
    pub fn verify<'a>(&'a self, mesh: &Mesh, rank: Option<usize>) -> Result<()> {
        let mesh = self.mesh_of(mesh);
        let bad = |m: String| Err(Error::invalid_argument(m));
        if mesh.is_maximal() {
            if !self.dims.is_empty() || !self.replicated.is_empty() || !self.unreduced.is_empty() {
                return bad(
                    "a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced axes."
                        .to_owned(),
                );
            }
            return Ok(());
        }
        if let Some(r) = rank
            && r != self.dims.len()
        {
            return bad(format!(
                "sharding doesn't match tensor rank: {} != {r}",
                self.dims.len()
            ));
        }
        let numbers = mesh.axis_numbers();
        let index = |a: &ShardyAxis| numbers.get(a.name.as_str()).copied();
        let mut seen: HashSet<&ShardyAxis> = HashSet::new();
        let mut check_axes = |axes: &'a [ShardyAxis]| -> Result<()> {
            for (i, a) in axes.iter().enumerate() {
                if index(a).is_none() {
                    return bad(format!("unknown axis name: \"{}\"", a.name));
                }
                if !seen.insert(a) {
                    return bad(format!("duplicate axis ref: {a}"));
                }
                if i > 0
                    && let (Some((p0, s0)), Some((p1, _))) = (axes[i - 1].sub, a.sub)
                    && axes[i - 1].name == a.name
                    && p0.checked_mul(s0) == Some(p1)
                {
                    return bad(format!(
                        "two consecutive sub-axes can be merged: {}, {a}",
                        axes[i - 1]
                    ));
                }
            }
            Ok(())
        };
        for (i, d) in self.dims.iter().enumerate() {
            check_axes(&d.axes)?;
            if d.axes.is_empty() && !d.open && d.priority.is_some() {
                return bad(format!("dim {i} is empty and closed but has a priority"));
            }
        }
        for (what, axes) in [
            ("replicated", &self.replicated),
            ("unreduced", &self.unreduced),
        ] {
            check_axes(axes)?;
            let key = |a: &ShardyAxis| (index(a), a.sub.map_or(1, |s| s.0));
            if axes.windows(2).any(|w| key(&w[0]) > key(&w[1])) {
                return bad(format!("{what} axes are not ordered w.r.t. mesh"));
            }
        }
        Ok(())
    }

    /// The named form over `mesh` (for a sharding with an inline mesh, over
    /// that one).
    ///
    /// # Errors
    ///
    /// An axis the mesh does not have; a maximal mesh with dimensions or
    /// axes (Shardy's verifier); what XLA's `VerifyNamedSharding` rejects.
    pub fn to_named(&self, mesh: &Mesh) -> Result<NamedSharding> {
        self.verify(mesh, None)?;
        let mesh = self.mesh_of(mesh);
        if mesh.is_maximal()
            && (self.dims.iter().any(|d| !d.axes.is_empty())
                || !self.replicated.is_empty()
                || !self.unreduced.is_empty()
                || !self.dims.is_empty())
        {
            return Err(Error::invalid_argument(
                "a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced axes.",
            ));
        }
        let numbers = mesh.axis_numbers();
        let resolve = |a: &ShardyAxis| -> Result<AxisRef> {
            let index = *numbers.get(a.name.as_str()).ok_or_else(|| {
                Error::invalid_argument(format!("unknown axis name: \"{}\"", a.name))
            })?;
            match a.sub {
                Some((pre, size)) => AxisRef::sub_axis(index, pre, size),
                None => Ok(AxisRef::new(index)),
            }
        };
        let list = |v: &[ShardyAxis]| -> Result<Vec<AxisRef>> {
            let mut out = v.iter().map(resolve).collect::<Result<Vec<_>>>()?;
            out.sort_by_key(|a| (a.index(), a.sub_axis_info().map_or(1, |s| s.0)));
            Ok(out)
        };
        let dims = self
            .dims
            .iter()
            .map(|d| {
                Ok(DimensionSharding::new(
                    d.axes.iter().map(resolve).collect::<Result<Vec<_>>>()?,
                    !d.open,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        NamedSharding::new(
            mesh.clone(),
            dims,
            list(&self.replicated)?,
            list(&self.unreduced)?,
            Vec::new(),
        )
    }

    /// The `HloSharding` XLA's Shardy export gives this sharding over
    /// `mesh` (the `sdy.mesh` its `@name` refers to): XLA's
    /// `V3ToV2Sharding` of the named form.
    ///
    /// # Errors
    ///
    /// As [`to_named`](Self::to_named).
    pub fn to_hlo_sharding(&self, mesh: &Mesh) -> Result<HloSharding> {
        self.to_named(mesh)?.to_v2()
    }
}

/// The Shardy sharding over `mesh` (referred to as `@mesh_name`) that XLA's
/// Shardy export converts to `sharding`: each tiled dimension over whole
/// mesh axes, major to minor, unreduced axes for an unreduced subgroup, the
/// other axes replicated. The first such assignment in mesh-axis order is
/// returned.
///
/// # Errors
///
/// When no assignment of whole mesh axes gives `sharding` (a sharding of
/// another device count or order, manual subgroups, which Shardy writes as
/// `sdy.manual_computation`, or a tuple).
pub fn from_hlo_sharding(
    sharding: &HloSharding,
    mesh: &Mesh,
    mesh_name: &str,
) -> Result<ShardySharding> {
    let none = || {
        Error::invalid_argument(format!(
            "no Shardy sharding over the mesh {} gives {sharding}",
            DisplayMesh(mesh)
        ))
    };
    let target = sharding.to_v2()?;
    let names: Vec<String> = mesh.axes().iter().map(|a| a.0.clone()).collect();
    let axis = |&a: &usize| ShardyAxis {
        name: names[a].clone(),
        sub: None,
    };
    let build = |dims: &[Vec<usize>], unreduced: &[usize]| ShardySharding {
        mesh: MeshRef::Name(mesh_name.to_owned()),
        dims: dims
            .iter()
            .map(|axes| ShardyDim {
                axes: axes.iter().map(axis).collect(),
                open: false,
                priority: None,
            })
            .collect(),
        replicated: Vec::new(),
        unreduced: unreduced.iter().map(axis).collect(),
    };
    let (rank, splits, unreduced_size) = match &target.kind {
        Kind::Replicated => {
            return Err(Error::invalid_argument(
                "a replicated sharding has no rank: write each dimension as {}",
            ));
        }
        Kind::Tiled(t) => {
            if t.subgroup_types.contains(&OpShardingType::Manual) {
                return Err(none());
            }
            let rank = target.tiled_data_rank().ok_or_else(none)?;
            let dims = t.tile_assignment.dimensions();
            let unreduced = t
                .subgroup_types
                .iter()
                .position(|&x| x == OpShardingType::Unreduced)
                .map_or(1, |i| dims[rank + i]);
            (rank, dims[..rank].to_vec(), unreduced)
        }
        _ => return Err(none()),
    };
    let k = names.len();
    if k > 8 || rank > crate::limits::MAX_NESTING_DEPTH {
        return Err(Error::invalid_argument(
            "meshes of more than 8 axes and shardings of more than 100 dimensions are not searched",
        ));
    }
    let sizes = mesh.axis_sizes();
    // Every ordered choice of distinct axes per dimension whose sizes
    // multiply to its split count, then a set for the unreduced axes.
    let mut found = None;
    Search {
        splits: &splits,
        sizes: &sizes,
        assignment: vec![Vec::new(); rank],
        used: vec![false; k],
        visit: &mut |assignment: &[Vec<usize>], used: &[bool]| {
            let free: Vec<usize> = (0..k).filter(|&a| !used[a]).collect();
            for mask in 0u32..(1u32 << free.len()) {
                let chosen: Vec<usize> = free
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, &a)| a)
                    .collect();
                let size: i64 = chosen.iter().map(|&a| sizes[a]).product();
                if size != unreduced_size && !(unreduced_size == 1 && chosen.is_empty()) {
                    continue;
                }
                let candidate = build(assignment, &chosen);
                if let Ok(h) = candidate.to_hlo_sharding(mesh)
                    && h == target
                {
                    found = Some(candidate);
                    return true;
                }
            }
            false
        },
    }
    .dimension(0);
    found.ok_or_else(none)
}

/// What the search calls with each full assignment (the axes of each
/// dimension, the axes used): true stops it.
type Visit<'a> = dyn FnMut(&[Vec<usize>], &[bool]) -> bool + 'a;

/// Backtracking over dimensions: each dimension gets an ordered choice of
/// distinct unused axes whose sizes multiply to its split count; `visit`
/// sees each full assignment and returns true to stop.
struct Search<'a> {
    splits: &'a [i64],
    sizes: &'a [i64],
    /// The axes chosen for each dimension so far.
    assignment: Vec<Vec<usize>>,
    /// Whether each axis is chosen.
    used: Vec<bool>,
    visit: &'a mut Visit<'a>,
}

impl Search<'_> {
    /// Assigns dimensions `dim..`; true when `visit` stopped the search.
    fn dimension(&mut self, dim: usize) -> bool {
        match self.splits.get(dim) {
            None => (self.visit)(&self.assignment, &self.used),
            Some(&split) => self.fill(split, dim),
        }
    }

    /// Adds axes to dimension `dim` until their sizes leave `remaining`
    /// to split, then goes on with the next dimension.
    fn fill(&mut self, remaining: i64, dim: usize) -> bool {
        if remaining == 1 && self.dimension(dim + 1) {
            return true;
        }
        for a in 0..self.sizes.len() {
            let size = self.sizes[a];
            if self.used[a] || size <= 1 || remaining % size != 0 {
                continue;
            }
            self.used[a] = true;
            self.assignment[dim].push(a);
            if self.fill(remaining / size, dim) {
                return true;
            }
            self.assignment[dim].pop();
            self.used[a] = false;
        }
        false
    }
}
