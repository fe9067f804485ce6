//! The text of a sharding: XLA's `HloSharding::Print` / `ToString` and the
//! HLO parser's `ParseSharding` (`xla/hlo/parser/hlo_parser.cc`), over the
//! crate's port of XLA's lexer, with XLA's messages and positions.
//!
//! ```text
//! sharding ::= '{' single '}' | '{' (single (',' single)*)? '}'   (tuple)
//! single   ::= '{' (replicated | maximal | manual | unknown | unreduced
//!                  | device=N | devices=[dims](list | <=[dims](T(perm))?)
//!                  | last_tile_dim_replicate | last_tile_dims={types}
//!                  | shard_as N | shard_like N | metadata=...)* '}'
//!            | '{' mesh[...] ... '}'                              (named)
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Location, Result};
use crate::proto::op_sharding::Type;
use crate::proto::{OpMetadata, Payload, payload::PayloadSource};
use crate::text::ParseOptions;
use crate::text::lexer::Tok;
use crate::text::parser::Parser;

use super::named::{AxisRef, DimensionSharding, Mesh, MeshDevices, NamedSharding};
use super::strings::{unescape_mlir, write_metadata};
use super::tile_assignment::{TileAssignment, check_listable, checked_product};
use super::{HloSharding, Kind, ShardGroup, construct};

// ------------------------------------------------------------------ printing

/// XLA's names of subgroup types in `last_tile_dims={...}`.
fn type_name(t: Type) -> &'static str {
    match t {
        Type::Manual => "manual",
        Type::Maximal => "maximal",
        Type::Replicated => "replicated",
        Type::Unreduced => "unreduced",
        _ => "error_type.",
    }
}

impl HloSharding {
    /// XLA's `HloSharding::Print(printer, include_metadata)`.
    pub(crate) fn fmt_with(&self, f: &mut impl fmt::Write, include_metadata: bool) -> fmt::Result {
        let kind = match &self.kind {
            Kind::Tuple(elements) => {
                f.write_char('{')?;
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        if i % 5 == 0 {
                            write!(f, ", /*index={i}*/")?;
                        } else {
                            f.write_str(", ")?;
                        }
                    }
                    e.fmt_with(f, include_metadata)?;
                }
                return f.write_char('}');
            }
            Kind::Named(n) => return n.fmt_with(f, include_metadata),
            k => k,
        };
        f.write_char('{')?;
        match kind {
            Kind::Replicated => f.write_str("replicated")?,
            Kind::Manual => f.write_str("manual")?,
            Kind::Unknown => f.write_str("unknown")?,
            Kind::Unreduced => f.write_str("unreduced")?,
            Kind::Maximal(d) => write!(f, "maximal device={d}")?,
            Kind::Tiled(t) => {
                write!(f, "devices={}", t.tile_assignment)?;
                if t.replicate_on_last_tile_dim {
                    f.write_str(" last_tile_dim_replicate")?;
                }
                if !t.subgroup_types.is_empty() {
                    f.write_str(" last_tile_dims={")?;
                    for (i, &s) in t.subgroup_types.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        f.write_str(type_name(s))?;
                    }
                    f.write_char('}')?;
                }
            }
            Kind::Tuple(_) | Kind::Named(_) => {}
        }
        match self.shard_group {
            Some(ShardGroup::As(id)) => write!(f, " shard_as {id}")?,
            Some(ShardGroup::Like(id)) => write!(f, " shard_like {id}")?,
            None => {}
        }
        if include_metadata && !self.metadata.is_empty() {
            f.write_str(" metadata={")?;
            if let [m] = self.metadata.as_slice() {
                write_metadata(f, m)?;
            } else {
                for (i, m) in self.metadata.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_char('{')?;
                    write_metadata(f, m)?;
                    f.write_char('}')?;
                }
            }
            f.write_char('}')?;
        }
        f.write_char('}')
    }

    /// XLA's `ToString(/*include_metadata=*/true)`, as HLO module text
    /// prints an instruction's sharding: with `metadata={...}`.
    #[doc(alias = "HloSharding::ToString")]
    pub fn to_string_with_metadata(&self) -> String {
        let mut s = String::new();
        let _ = self.fmt_with(&mut s, true);
        s
    }
}

impl fmt::Display for HloSharding {
    /// XLA's `HloSharding::ToString()` (without metadata), as jaxlib's
    /// `repr` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_with(f, false)
    }
}

// ------------------------------------------------------------------- parsing

impl FromStr for HloSharding {
    type Err = Error;

    /// XLA's `ParseSharding` (jaxlib's `HloSharding.from_string`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Parse`](crate::ErrorKind::Parse) with XLA's `Syntax
    /// error:` text and positions; also for input XLA accepts only to abort
    /// on it (a named sharding XLA's `VerifyNamedSharding` rejects, an
    /// iota and a device list together).
    fn from_str(text: &str) -> Result<Self> {
        let mut p = Parser::new(text, 0, &ParseOptions::default());
        let parsed = ShardingParser { p: &mut p }.parse_sharding();
        match parsed {
            Some(_) if p.lx.kind != Tok::Eof => Err(p.extra_content_error("sharding")),
            Some(s) => Ok(s),
            None => Err(p.syntax_error()),
        }
    }
}

impl HloSharding {
    /// An `mhlo.sharding` attribute as XLA reads it when it converts
    /// StableHLO/MHLO to HLO (`ConvertSharding`,
    /// `xla/hlo/translate/mhlo_to_hlo/attribute_exporter.cc`): the
    /// string's bytes as a serialized `OpSharding` when they parse as one
    /// ([`from_proto_bytes`](Self::from_proto_bytes)), else as sharding text
    /// (`ParseSharding`, [`str::parse`]).
    ///
    /// `text` is the whole attribute (`mhlo.sharding = "{replicated}"`),
    /// its MLIR string literal (`"{replicated}"`, MLIR's escapes such as
    /// `\22` undone), or the string's value itself (`{replicated}`).
    ///
    /// ```
    /// use xla_shape::sharding::HloSharding;
    /// let s = HloSharding::from_mhlo_sharding(r#"mhlo.sharding = "{devices=[2,1]0,1}""#)?;
    /// assert_eq!(s, "{devices=[2,1]0,1}".parse()?);
    /// assert_eq!(HloSharding::from_mhlo_sharding("{replicated}")?, HloSharding::replicate());
    /// # Ok::<(), xla_shape::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Parse`](crate::ErrorKind::Parse) for an unterminated
    /// literal, or for a value that is neither (the text's syntax error);
    /// what `FromProto` rejects of a value that parses as an `OpSharding`.
    pub fn from_mhlo_sharding(text: &str) -> Result<Self> {
        let trimmed = text.trim();
        let (attribute, literal) = match trimmed.strip_prefix("mhlo.sharding") {
            Some(rest) => (true, rest.trim_start().trim_start_matches('=').trim_start()),
            None => (false, trimmed),
        };
        let value = match literal.strip_prefix('"') {
            Some(rest) => {
                let body = rest
                    .strip_suffix('"')
                    .filter(|b| !ends_escaped(b))
                    .ok_or_else(|| {
                        Error::new(
                            crate::ErrorKind::Parse,
                            format!("the mhlo.sharding string {literal:?} does not end with '\"'"),
                        )
                    })?;
                Cow::Owned(unescape_mlir(body.as_bytes()))
            }
            // The value as given (XLA's lexer skips white space; the bytes
            // are first read as they are).
            None if attribute => Cow::Borrowed(literal.as_bytes()),
            None => Cow::Borrowed(text.as_bytes()),
        };
        match HloSharding::from_proto_bytes(&value) {
            Err(e) if e.kind() == crate::ErrorKind::Decode => match std::str::from_utf8(&value) {
                Ok(t) => t.parse(),
                Err(_) => Err(e),
            },
            parsed => parsed,
        }
    }
}

/// Whether the last `"` of a literal's body is escaped (`\"`): an odd run
/// of `\` at the end.
fn ends_escaped(body: &str) -> bool {
    body.bytes().rev().take_while(|&c| c == b'\\').count() % 2 == 1
}

/// XLA's `ParseSharding` on the sharding that starts `at` in `text` (an
/// instruction attribute in module text): the sharding or XLA's located
/// error, and the offset just past its last token.
pub(crate) fn parse_sharding_at(text: &str, at: Location) -> (Result<HloSharding>, usize) {
    let mut p = Parser::new(text, at.offset, &ParseOptions::default());
    p.origin = at;
    let parsed = ShardingParser { p: &mut p }.parse_sharding();
    let end = p.lx.prev_end;
    match parsed {
        Some(s) => (Ok(s), end),
        None => (Err(p.syntax_error()), end),
    }
}

struct ShardingParser<'p, 'a> {
    p: &'p mut Parser<'a>,
}

/// The attribute name of an `AttributeName` token (`devices=` without `=`).
fn attribute_name<'a>(p: &Parser<'a>) -> &'a [u8] {
    let t = p.lx.token();
    &t[..t.len().saturating_sub(1)]
}

impl ShardingParser<'_, '_> {
    /// Integers separated by commas (`0,1,2`), appended to `out`; false
    /// after an error.
    fn ints(&mut self, out: &mut Vec<i64>) -> bool {
        loop {
            let Some(d) = self.p.parse_int() else {
                return false;
            };
            out.push(d);
            if !self.p.eat(Tok::Comma) {
                return true;
            }
        }
    }

    fn token_is(&self, kind: Tok, text: &[u8]) -> bool {
        self.p.lx.kind == kind && self.p.lx.token() == text
    }

    /// An error at `offset` (for what XLA aborts on, a message of ours).
    fn fail_at(&mut self, offset: usize, message: impl Into<String>) -> Option<HloSharding> {
        self.p.error_at(offset, message.into());
        None
    }

    /// XLA's `ParseSharding`.
    fn parse_sharding(&mut self) -> Option<HloSharding> {
        if !self
            .p
            .expect(Tok::Lbrace, "expected '{' to start sharding attribute")
        {
            return None;
        }
        if !matches!(self.p.lx.kind, Tok::Lbrace | Tok::Rbrace) {
            return self.parse_single(true);
        }
        let mut elements = Vec::new();
        if self.p.lx.kind != Tok::Rbrace {
            loop {
                elements.push(self.parse_single(false)?);
                if !self.p.eat(Tok::Comma) {
                    break;
                }
            }
        }
        if !self
            .p
            .expect(Tok::Rbrace, "expected '}' to end sharding attribute")
        {
            return None;
        }
        Some(HloSharding::tuple(elements))
    }

    /// XLA's `ParseSingleSharding`.
    fn parse_single(&mut self, lbrace_pre_lexed: bool) -> Option<HloSharding> {
        if !lbrace_pre_lexed
            && !self
                .p
                .expect(Tok::Lbrace, "expected '{' to start sharding attribute")
        {
            return None;
        }
        if self.token_is(Tok::Ident, b"mesh") || self.token_is(Tok::Ident, b"maximal_mesh") {
            return self.parse_named();
        }
        let loc = self.p.lx.start;
        let (mut maximal, mut replicated, mut manual, mut unknown, mut unreduced) =
            (false, false, false, false, false);
        let mut last_tile_dim_replicate = false;
        let (mut shard_as, mut shard_like) = (false, false);
        let mut shard_group_id = 0i64;
        let mut devices: Vec<i64> = Vec::new();
        let mut dims: Vec<i64> = Vec::new();
        let mut reshape: Vec<i64> = Vec::new();
        let mut perm: Vec<i64> = Vec::new();
        let mut types: Vec<Type> = Vec::new();
        let mut metadata: Vec<OpMetadata> = Vec::new();
        while self.p.lx.kind != Tok::Rbrace {
            match self.p.lx.kind {
                Tok::KwMaximal => maximal = true,
                Tok::KwReplicated => replicated = true,
                Tok::KwManual => manual = true,
                Tok::KwUnknown => unknown = true,
                Tok::KwUnreduced => unreduced = true,
                Tok::KwLastTileDimReplicate => last_tile_dim_replicate = true,
                Tok::AttributeName => {
                    match attribute_name(self.p) {
                        b"device" => {
                            if self.p.lx.lex() != Tok::Int {
                                self.p.token_error("device= attribute must be an integer");
                                return None;
                            }
                            devices = vec![self.p.lx.int];
                            self.p.lx.lex();
                        }
                        b"devices" => {
                            self.p.lx.lex();
                            if !self.parse_tile_assignment(
                                &mut dims,
                                &mut reshape,
                                &mut perm,
                                Some(&mut devices),
                            ) {
                                return None;
                            }
                        }
                        b"metadata" => {
                            self.p.lx.lex();
                            if !self.parse_single_or_list_metadata(&mut metadata) {
                                return None;
                            }
                        }
                        b"last_tile_dims" => {
                            self.p.lx.lex();
                            if !self.parse_list_sharding_type(&mut types) {
                                return None;
                            }
                        }
                        _ => {
                            self.p.token_error(
                                "unknown attribute in sharding: expected device=, devices= metadata= or last_tile_dims= ",
                            );
                            return None;
                        }
                    }
                    continue;
                }
                Tok::KwShardAs | Tok::KwShardLike => {
                    if self.p.lx.kind == Tok::KwShardAs {
                        shard_as = true;
                    } else {
                        shard_like = true;
                    }
                    self.p.lx.lex();
                    shard_group_id = self.p.parse_int()?;
                    continue;
                }
                _ => {
                    self.p.token_error("unexpected token");
                    return None;
                }
            }
            self.p.lx.lex();
        }
        let sharding = if replicated || manual || unknown || unreduced {
            let (word, s) = if replicated {
                ("replicated", HloSharding::replicate())
            } else if maximal {
                return self.maximal(
                    loc,
                    &devices,
                    metadata,
                    shard_as,
                    shard_like,
                    shard_group_id,
                );
            } else if manual {
                ("manual", HloSharding::manual())
            } else if unknown {
                ("unknown", HloSharding::unknown())
            } else {
                ("unreduced", HloSharding::unreduced())
            };
            if !devices.is_empty() {
                return self.fail_at(
                    loc,
                    format!("{word} shardings should not have any devices assigned"),
                );
            }
            s.with_metadata(metadata)
        } else if maximal {
            return self.maximal(
                loc,
                &devices,
                metadata,
                shard_as,
                shard_like,
                shard_group_id,
            );
        } else {
            if dims.is_empty() {
                return self.fail_at(
                    loc,
                    "non-maximal shardings must have a tile assignment list including dimensions",
                );
            }
            if perm.len() != reshape.len() {
                return self.fail_at(
                    loc,
                    format!(
                        "iota_transpose_perm should have the same rank as iota_reshape_dims : expected {}, saw {}.",
                        reshape.len(),
                        perm.len()
                    ),
                );
            }
            if last_tile_dim_replicate {
                if !types.is_empty() {
                    // XLA: CHECK(subgroup_types.empty()).
                    return self.fail_at(
                        loc,
                        "last_tile_dim_replicate and last_tile_dims cannot be given together",
                    );
                }
                types.push(Type::Replicated);
            }
            let built = if !reshape.is_empty() {
                if !devices.is_empty() {
                    // XLA: CHECK(devices.empty()).
                    return self.fail_at(
                        loc,
                        "an iota tile assignment (<=[...]) and a device list cannot be given together",
                    );
                }
                let ta = TileAssignment::iota(&dims, &reshape, &perm);
                if types.is_empty() {
                    Ok(HloSharding::tile(ta).with_metadata(metadata))
                } else {
                    construct::subgroup(ta, &types, metadata)
                }
            } else {
                if devices.len() <= 1 {
                    return self.fail_at(
                        loc,
                        "non-maximal shardings must have more than one device assigned",
                    );
                }
                // XLA copies the devices into an array of the dimensions:
                // missing ones stay 0, extra ones are dropped.
                let n = match checked_product(&dims) {
                    Some(n) => n,
                    None => {
                        return self.fail_at(
                            loc,
                            format!(
                                "tile assignment dimensions [{}] do not describe an array",
                                crate::model::join(&dims, ",")
                            ),
                        );
                    }
                };
                if n > devices.len() as i64
                    && let Err(e) = check_listable(n)
                {
                    return self.fail_at(loc, e.message().to_owned());
                }
                devices.resize(n as usize, 0);
                let ta = TileAssignment::list(dims, devices);
                if types.is_empty() {
                    Ok(HloSharding::tile(ta).with_metadata(metadata))
                } else {
                    construct::subgroup(ta, &types, metadata)
                }
            };
            match built {
                Ok(s) => s,
                Err(e) => return self.fail_at(loc, e.message().to_owned()),
            }
        };
        Some(self.finish(sharding, shard_as, shard_like, shard_group_id))
    }

    fn maximal(
        &mut self,
        loc: usize,
        devices: &[i64],
        metadata: Vec<OpMetadata>,
        shard_as: bool,
        shard_like: bool,
        id: i64,
    ) -> Option<HloSharding> {
        let [device] = devices else {
            return self.fail_at(
                loc,
                "maximal shardings should have exactly one device assigned",
            );
        };
        let s = HloSharding::assign_device(*device).with_metadata(metadata);
        Some(self.finish(s, shard_as, shard_like, id))
    }

    /// The shard group, and the closing `}`.
    fn finish(&mut self, s: HloSharding, shard_as: bool, shard_like: bool, id: i64) -> HloSharding {
        let group = if shard_as {
            Some(ShardGroup::As(id))
        } else if shard_like {
            Some(ShardGroup::Like(id))
        } else {
            None
        };
        self.p.lx.lex();
        s.with_shard_group(group)
    }

    /// XLA's `ParseTileAssignment`.
    fn parse_tile_assignment(
        &mut self,
        dims: &mut Vec<i64>,
        reshape: &mut Vec<i64>,
        perm: &mut Vec<i64>,
        devices: Option<&mut Vec<i64>>,
    ) -> bool {
        if !self
            .p
            .expect(Tok::Lsquare, "expected '[' to start sharding devices shape")
        {
            return false;
        }
        if !self.ints(dims) {
            return false;
        }
        if !self
            .p
            .expect(Tok::Rsquare, "expected ']' to end sharding devices shape")
        {
            return false;
        }
        if self.p.lx.kind == Tok::Leq {
            self.p.lx.lex();
            return self.parse_iota_array(reshape, perm);
        }
        let Some(devices) = devices else {
            self.p.token_error(
                "Caller expected iota tile assignment when parsing, which should not have any manual device entries.",
            );
            return false;
        };
        self.ints(devices)
    }

    /// XLA's `ParseIotaTileAssignmentArray`: `[dims]` and `T(perm)`.
    fn parse_iota_array(&mut self, reshape: &mut Vec<i64>, perm: &mut Vec<i64>) -> bool {
        if !self.p.expect(
            Tok::Lsquare,
            "expected '[' to start sharding iota_reshape_dims",
        ) {
            return false;
        }
        if !self.ints(reshape) {
            return false;
        }
        if !self.p.expect(
            Tok::Rsquare,
            "expected ']' to end sharding iota_reshape_dims",
        ) {
            return false;
        }
        if reshape.len() == 1 {
            perm.push(0);
            return true;
        }
        const START: &str = "expected 'T(' to start sharding devices iota_transpose_perm";
        if !self.token_is(Tok::Ident, b"T") {
            self.p.token_error(START);
            return false;
        }
        self.p.lx.lex();
        if !self.p.expect(Tok::Lparen, START) {
            return false;
        }
        loop {
            let Some(d) = self.p.parse_int() else {
                return false;
            };
            if d < 0 || d >= reshape.len() as i64 {
                self.p.token_error(format!(
                    "Out of range iota minor_to_major value {d}, expecting value in range [0, {})",
                    reshape.len()
                ));
                return false;
            }
            perm.push(d);
            if !self.p.eat(Tok::Comma) {
                break;
            }
        }
        self.p.expect(
            Tok::Rparen,
            "expected ')' to end sharding devices iota_transpose_perm",
        )
    }

    /// XLA's `ParseListShardingType`.
    fn parse_list_sharding_type(&mut self, types: &mut Vec<Type>) -> bool {
        if !self
            .p
            .expect(Tok::Lbrace, "expected '{' to start sharding type list")
        {
            return false;
        }
        if self.p.lx.kind != Tok::Rbrace {
            loop {
                let t = match self.p.lx.kind {
                    Tok::KwMaximal => Type::Maximal,
                    Tok::KwReplicated => Type::Replicated,
                    Tok::KwManual => Type::Manual,
                    Tok::KwUnreduced => Type::Unreduced,
                    // XLA fails here without a message.
                    _ => return false,
                };
                self.p.lx.lex();
                types.push(t);
                if !self.p.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.p
            .expect(Tok::Rbrace, "expected '}' to end sharding type list")
    }

    /// XLA's `ParseSingleOrListMetadata`.
    fn parse_single_or_list_metadata(&mut self, out: &mut Vec<OpMetadata>) -> bool {
        if self.p.lx.kind == Tok::Lbrace && self.p.lx.look_ahead() == Tok::Lbrace {
            self.p.lx.lex();
            if self.p.lx.kind != Tok::Rbrace {
                loop {
                    let Some(m) = self.parse_metadata() else {
                        return false;
                    };
                    out.push(m);
                    if !self.p.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            return self
                .p
                .expect(Tok::Rbrace, "expected '}' to end metadata list");
        }
        match self.parse_metadata() {
            Some(m) => {
                out.push(m);
                true
            }
            None => false,
        }
    }

    /// XLA's `ParseMetadata` (through `ParseSubAttributes`).
    fn parse_metadata(&mut self) -> Option<OpMetadata> {
        let mut m = OpMetadata::default();
        if !self
            .p
            .expect(Tok::Lbrace, "expects '{' to start sub attributes")
        {
            return None;
        }
        let mut seen: Vec<&'static str> = Vec::new();
        if self.p.lx.kind != Tok::Rbrace {
            loop {
                self.p.eat(Tok::Comma);
                self.parse_metadata_attribute(&mut m, &mut seen)?;
                if self.p.lx.kind == Tok::Rbrace {
                    break;
                }
            }
        }
        if !self
            .p
            .expect(Tok::Rbrace, "expects '}' to end sub attributes")
        {
            return None;
        }
        // XLA checks the profile types after the attributes, and fails
        // without a message (`ProfileType_IsValid`; xla_data.proto's
        // `ProfileType` has INVALID=0 to INTEGER=3).
        #[allow(deprecated)]
        if m.profile_type.iter().any(|t| !(0..=3).contains(t)) {
            return None;
        }
        Some(m)
    }

    /// XLA's `ParseAttributeHelper` over the attributes of `ParseMetadata`.
    fn parse_metadata_attribute(
        &mut self,
        m: &mut OpMetadata,
        seen: &mut Vec<&'static str>,
    ) -> Option<()> {
        // The attributes of XLA's `ParseMetadata`, in its btree_map order.
        const NAMES: [&str; 12] = [
            "deduplicated_name",
            "metadata_payload",
            "op_name",
            "op_type",
            "profile_type",
            "scheduling_name",
            "source_column",
            "source_end_column",
            "source_end_line",
            "source_file",
            "source_line",
            "stack_frame_id",
        ];
        let loc = self.p.lx.start;
        if self.p.lx.kind != Tok::AttributeName {
            self.p.token_error("expects attribute name");
            self.p.error_at(loc, "error parsing attributes");
            return None;
        }
        let raw = attribute_name(self.p);
        let name = String::from_utf8_lossy(raw).into_owned();
        self.p.lx.lex();
        let Some(&known) = NAMES.iter().find(|n| n.as_bytes() == raw) else {
            self.p.error_at(
                loc,
                format!(
                    "unexpected attribute \"{name}\". Allowed attributes: {}",
                    NAMES.join(", ")
                ),
            );
            return None;
        };
        if seen.contains(&known) {
            self.p
                .error_at(loc, format!("attribute {name} already exists"));
            return None;
        }
        seen.push(known);
        let ok = match known {
            "op_type" | "op_name" | "source_file" | "deduplicated_name" | "scheduling_name"
            | "metadata_payload" => match self.parse_string() {
                Some(bytes) if known == "metadata_payload" => {
                    m.metadata_payload = Some(Payload {
                        payload_source: Some(PayloadSource::Value(bytes)),
                    });
                    true
                }
                Some(bytes) => match String::from_utf8(bytes) {
                    Ok(s) => {
                        match known {
                            "op_type" => m.op_type = s,
                            "op_name" => m.op_name = s,
                            "source_file" => m.source_file = s,
                            "deduplicated_name" => m.deduplicated_name = s,
                            _ => m.scheduling_name = s,
                        }
                        true
                    }
                    Err(_) => {
                        self.p.error_at(
                            loc,
                            format!("metadata {name} is not UTF-8 (this crate keeps protobuf strings as UTF-8)"),
                        );
                        return None;
                    }
                },
                None => false,
            },
            "profile_type" => self.parse_profile_types(m),
            _ => {
                let at = self.p.lx.start;
                match self.p.parse_int() {
                    Some(v) if i32::try_from(v).is_ok() => {
                        let v = v as i32;
                        match known {
                            "source_line" => m.source_line = v,
                            "source_end_line" => m.source_end_line = v,
                            "source_column" => m.source_column = v,
                            "source_end_column" => m.source_end_column = v,
                            _ => m.stack_frame_id = v,
                        }
                        true
                    }
                    Some(_) => {
                        self.p.error_at(at, "value out of range for int32_t");
                        false
                    }
                    None => false,
                }
            }
        };
        if !ok {
            self.p
                .error_at(loc, format!("error parsing attribute {name}"));
            return None;
        }
        Some(())
    }

    /// XLA's `ParseString`: the unescaped bytes of a string token.
    fn parse_string(&mut self) -> Option<Vec<u8>> {
        if self.p.lx.kind != Tok::String {
            self.p.token_error("expects string");
            return None;
        }
        let v = self.p.lx.string_value();
        self.p.lx.lex();
        Some(v)
    }

    /// `profile_type={1,2}`: XLA's `ParseInt64List`.
    #[allow(deprecated)] // `profile_type`, which XLA still reads.
    fn parse_profile_types(&mut self, m: &mut OpMetadata) -> bool {
        const END: &str = "expects a list to end with kRbrace";
        if !self.p.expect(Tok::Lbrace, END) {
            return false;
        }
        let mut values = Vec::new();
        if self.p.lx.kind != Tok::Rbrace {
            loop {
                let Some(v) = self.p.parse_int() else {
                    return false;
                };
                values.push(v);
                if self.p.lx.kind != Tok::Comma {
                    break;
                }
                self.p.lx.lex();
            }
        }
        if !self.p.expect(Tok::Rbrace, END) {
            return false;
        }
        // Out-of-range values are refused after the attributes (see
        // `parse_metadata`); one that does not fit an `i32` cannot be valid.
        m.profile_type
            .extend(values.iter().map(|&v| i32::try_from(v).unwrap_or(-1)));
        true
    }

    // ---------------------------------------------------------- named form

    /// XLA's `ParseSingleSharding(NamedSharding)`, as jaxlib 0.10.2 reads
    /// it.
    fn parse_named(&mut self) -> Option<HloSharding> {
        let loc = self.p.lx.start;
        let mesh = self.parse_mesh()?;
        let mut metadata = Vec::new();
        if mesh.is_maximal() {
            if !self.parse_metadata_if_present(&mut metadata) {
                return None;
            }
            return self.named_done(loc, mesh, Vec::new(), [vec![], vec![], vec![]], metadata);
        }
        self.p.eat(Tok::Comma);
        let all: Vec<AxisRef> = (0..mesh.num_axes() as i64).map(AxisRef::new).collect();
        let special = match self.p.lx.kind {
            Tok::KwReplicated => Some([vec![], vec![], vec![]]),
            Tok::KwUnreduced => Some([vec![], all, vec![]]),
            Tok::KwManual => Some([vec![], vec![], all]),
            _ => None,
        };
        if let Some(axes) = special {
            self.p.lx.lex();
            if !self.parse_metadata_if_present(&mut metadata) {
                return None;
            }
            return self.named_done(loc, mesh, Vec::new(), axes, metadata);
        }
        let numbers = mesh.axis_numbers();
        let mut dims = Vec::new();
        let ok = self.p.parse_list(Tok::Lsquare, Tok::Rsquare, |p| {
            match (ShardingParser { p }).parse_dimension_sharding(&mesh, &numbers) {
                Some(d) => {
                    dims.push(d);
                    true
                }
                None => false,
            }
        });
        if !ok {
            return None;
        }
        let mut axes: [Vec<AxisRef>; 3] = [vec![], vec![], vec![]];
        while self.p.lx.kind != Tok::Rbrace {
            if !self
                .p
                .expect(Tok::Comma, "expected ',' before next attribute")
            {
                return None;
            }
            if self.p.lx.kind != Tok::AttributeName {
                self.p.token_error("expects attribute name");
                return None;
            }
            let slot = match attribute_name(self.p) {
                b"replicated" => Some(0),
                b"unreduced" => Some(1),
                b"manual" => Some(2),
                b"metadata" => None,
                _ => {
                    self.p.lx.lex();
                    self.p.token_error(
                        "unknown attribute in named sharding: expected replicated, unreduced, manual or metadata",
                    );
                    return None;
                }
            };
            self.p.lx.lex();
            match slot {
                Some(i) => {
                    let mut list = Vec::new();
                    if !self.parse_axis_ref_list(&mesh, &numbers, &mut list) {
                        return None;
                    }
                    axes[i].extend(list);
                }
                None => {
                    if !self.parse_single_or_list_metadata(&mut metadata) {
                        return None;
                    }
                }
            }
        }
        self.named_done(loc, mesh, dims, axes, metadata)
    }

    /// The named sharding, verified, and the closing `}`.
    fn named_done(
        &mut self,
        loc: usize,
        mesh: Mesh,
        dims: Vec<DimensionSharding>,
        [replicated, unreduced, manual]: [Vec<AxisRef>; 3],
        metadata: Vec<OpMetadata>,
    ) -> Option<HloSharding> {
        let named = match NamedSharding::new(mesh, dims, replicated, unreduced, manual) {
            Ok(n) => n,
            Err(e) => return self.fail_at(loc, e.message().to_owned()),
        };
        if !self
            .p
            .expect(Tok::Rbrace, "expected '}' to end sharding attribute")
        {
            return None;
        }
        Some(HloSharding::named(named).with_metadata(metadata))
    }

    /// `, metadata={...}` after a maximal mesh or a special form.
    fn parse_metadata_if_present(&mut self, metadata: &mut Vec<OpMetadata>) -> bool {
        if !self.p.eat(Tok::Comma) {
            return true;
        }
        if self.p.lx.kind != Tok::AttributeName {
            self.p.token_error("expects attribute name");
            return false;
        }
        if attribute_name(self.p) != b"metadata" {
            return false;
        }
        self.p.lx.lex();
        self.parse_single_or_list_metadata(metadata)
    }

    /// XLA's `ParseMesh`, as jaxlib 0.10.2 reads it.
    fn parse_mesh(&mut self) -> Option<Mesh> {
        let loc = self.p.lx.start;
        let maximal = self.token_is(Tok::Ident, b"maximal_mesh");
        self.p.lx.lex();
        if maximal {
            if !self
                .p
                .expect(Tok::Lsquare, "expected '[' after maximal_mesh")
            {
                return None;
            }
            if self.p.lx.kind != Tok::AttributeName || attribute_name(self.p) != b"device_id" {
                if self.p.lx.kind != Tok::AttributeName {
                    self.p.token_error("expects attribute name");
                } else {
                    self.p.lx.lex();
                }
                self.p
                    .token_error("expected device_id= attribute in maximal_mesh");
                return None;
            }
            self.p.lx.lex();
            let device = self.p.parse_int()?;
            if !self
                .p
                .expect(Tok::Rsquare, "expected ']' to end maximal_mesh")
            {
                return None;
            }
            return Some(Mesh::maximal(device));
        }
        if !self.p.expect(Tok::Lsquare, "expected '[' after mesh") {
            return None;
        }
        let mut axes: Vec<(String, i64)> = Vec::new();
        if self.p.lx.kind != Tok::Rsquare {
            loop {
                let name = self.parse_string()?;
                let name = match String::from_utf8(name) {
                    Ok(n) => n,
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                };
                if !self.p.expect(Tok::Equal, "expects '=' after axis name") {
                    return None;
                }
                let size = self.p.parse_int()?;
                axes.push((name, size));
                if !self.p.eat(Tok::Comma) {
                    break;
                }
            }
        }
        if !self.p.expect(Tok::Rsquare, "expected ']' to end mesh axes") {
            return None;
        }
        let mut devices = MeshDevices::Iota;
        if !axes.is_empty() && self.p.eat(Tok::Comma) {
            // XLA looks for `device_ids=` after the comma; anything else
            // leaves an error behind (shown only if the parse fails later).
            if self.p.lx.kind != Tok::AttributeName {
                self.p.token_error("expects attribute name");
            } else if attribute_name(self.p) != b"device_ids" {
                self.p.lx.lex();
            } else {
                self.p.lx.lex();
                if !self.p.expect(Tok::Lparen, "expected '(' for device_ids") {
                    return None;
                }
                if self.p.lx.kind == Tok::Lsquare {
                    let (mut r, mut p) = (Vec::new(), Vec::new());
                    if !self.parse_iota_array(&mut r, &mut p) {
                        return None;
                    }
                    devices = MeshDevices::IotaTransposed {
                        reshape_dims: r,
                        transpose_perm: p,
                    };
                } else {
                    let mut ids = Vec::new();
                    if self.p.lx.kind != Tok::Rparen {
                        loop {
                            ids.push(self.p.parse_int()?);
                            if !self.p.eat(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    devices = MeshDevices::List(ids);
                }
                if !self.p.expect(Tok::Rparen, "expected ')' to end device_ids") {
                    return None;
                }
            }
        }
        match Mesh::with_devices(axes, devices) {
            Ok(m) => Some(m),
            Err(e) => {
                self.p.error_at(loc, e.message().to_owned());
                None
            }
        }
    }

    /// XLA's `ParseAxisRef`.
    fn parse_axis_ref(&mut self, mesh: &Mesh, numbers: &HashMap<&str, i64>) -> Option<AxisRef> {
        let at = self.p.lx.start;
        let name = self.parse_string()?;
        let index = match mesh.find_axis(numbers, &String::from_utf8_lossy(&name)) {
            Ok(i) => i,
            Err(e) => {
                self.p.error_at(at, e.message().to_owned());
                return None;
            }
        };
        if !self.p.eat(Tok::Colon) {
            return Some(AxisRef::new(index));
        }
        if !self
            .p
            .expect(Tok::Lparen, "expected '(' before pre_size in sub axis")
        {
            return None;
        }
        let pre = self.p.parse_int()?;
        if !self
            .p
            .expect(Tok::Rparen, "expected ')' after pre_size in sub axis")
        {
            return None;
        }
        let size = self.p.parse_int()?;
        match AxisRef::sub_axis(index, pre, size) {
            Ok(a) => Some(a),
            Err(e) => {
                self.p.error_at(at, e.message().to_owned());
                None
            }
        }
    }

    /// XLA's `ParseAxisRefList`: `{'x', 'y':(2)2}`.
    fn parse_axis_ref_list(
        &mut self,
        mesh: &Mesh,
        numbers: &HashMap<&str, i64>,
        out: &mut Vec<AxisRef>,
    ) -> bool {
        self.p.parse_list(Tok::Lbrace, Tok::Rbrace, |p| {
            match (ShardingParser { p }).parse_axis_ref(mesh, numbers) {
                Some(a) => {
                    out.push(a);
                    true
                }
                None => false,
            }
        })
    }

    /// XLA's `ParseDimensionSharding`: `{'x', ?}`.
    fn parse_dimension_sharding(
        &mut self,
        mesh: &Mesh,
        numbers: &HashMap<&str, i64>,
    ) -> Option<DimensionSharding> {
        let mut axes = Vec::new();
        let mut closed = true;
        let ok = self.p.parse_list(Tok::Lbrace, Tok::Rbrace, |p| {
            if !closed {
                p.token_error("Saw axis ref after '?'");
                return false;
            }
            if p.lx.kind == Tok::QuestionMark {
                closed = false;
                p.lx.lex();
                return true;
            }
            match (ShardingParser { p }).parse_axis_ref(mesh, numbers) {
                Some(a) => {
                    axes.push(a);
                    true
                }
                None => false,
            }
        });
        ok.then(|| DimensionSharding::new(axes, closed))
    }
}
