//! XLA's `TileAssignment` (`xla/hlo/ir/tile_assignment.{h,cc}`): which
//! device holds each tile, as an explicit list (HloSharding "V1") or as a
//! reshaped and transposed iota (`IotaTileAssignment`, "V2":
//! `[4,2]<=[2,4]T(1,0)`), canonicalized as XLA canonicalizes it.
//!
//! The iota form is never expanded unless asked for: a tile assignment of
//! a million devices costs a few integers. Expanding one (every device of
//! [`TileAssignment::devices`], and the few canonicalizations that need the
//! list) is refused beyond [`MAX_LISTED_DEVICES`] devices.

use std::fmt;

use crate::error::{Error, Result};
use crate::model::{join, write_joined};

/// The most devices this crate lists one by one (2^20): expanding an iota
/// tile assignment into its device list, or filling an explicit list XLA's
/// parser pads with zeros, beyond this is an error (XLA allocates
/// whatever the text asks for; a 40-byte string can ask for 2^60).
pub const MAX_LISTED_DEVICES: i64 = 1 << 20;

/// The device list of a tile assignment: an iota reshaped to
/// `reshape_dims` and transposed by `transpose_perm` (XLA's
/// `IotaTileAssignment`), or an explicit list in row-major order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Devices {
    Iota {
        reshape_dims: Vec<i64>,
        transpose_perm: Vec<i64>,
    },
    List(Vec<i64>),
}

/// Which device holds each tile of a tiled sharding: an array of device ids
/// whose shape is the number of tiles along each dimension (and, last, the
/// subgroup dimensions).
///
/// ```
/// use xla_shape::sharding::TileAssignment;
/// // [2,4]<=[4,2]T(1,0): numpy.arange(8).reshape(4,2).transpose(1,0).reshape(2,4)
/// let t = TileAssignment::iota(&[2, 4], &[4, 2], &[1, 0]);
/// assert_eq!(t.devices()?, [0, 2, 4, 6, 1, 3, 5, 7]);
/// assert_eq!(t.to_string(), "[2,4]<=[4,2]T(1,0)");
/// // XLA's canonical form: [3,4,5]T(1,2,0) is [3,20]T(1,0).
/// assert_eq!(TileAssignment::iota(&[60], &[3, 4, 5], &[1, 2, 0]).to_string(), "[60]<=[3,20]T(1,0)");
/// # Ok::<(), xla_shape::Error>(())
/// ```
#[derive(Clone, Debug, Eq)]
pub struct TileAssignment {
    dims: Vec<i64>,
    devices: Devices,
}

impl PartialEq for TileAssignment {
    /// XLA's `TileAssignment::operator==`: two iota forms are equal when
    /// their canonical forms are; otherwise the device arrays are compared.
    fn eq(&self, other: &Self) -> bool {
        if self.dims != other.dims {
            return false;
        }
        match (&self.devices, &other.devices) {
            (Devices::Iota { .. }, Devices::Iota { .. }) | (Devices::List(_), Devices::List(_)) => {
                self.devices == other.devices
            }
            _ => {
                let n = self.num_elements();
                n == other.num_elements()
                    && self.valid_for_values()
                    && other.valid_for_values()
                    && (0..n).all(|i| self.device_at_linear(i) == other.device_at_linear(i))
            }
        }
    }
}

impl std::hash::Hash for TileAssignment {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // Equal assignments can differ in form; the dimensions agree.
        self.dims.hash(state);
    }
}

/// `Product` of XLA (`xla/util.h`), with the wrap-around of its `int64_t`.
pub(crate) fn product(dims: &[i64]) -> i64 {
    dims.iter().fold(1i64, |p, &d| p.wrapping_mul(d))
}

/// The product, if it does not overflow and no factor is negative.
pub(crate) fn checked_product(dims: &[i64]) -> Option<i64> {
    dims.iter()
        .try_fold(1i64, |p, &d| if d < 0 { None } else { p.checked_mul(d) })
}

/// XLA's `CanonicalizeIotaDims` (`tile_assignment.cc`): removes dimensions
/// of size one and merges runs of dimensions that the transpose keeps in
/// major-to-minor order, until nothing changes.
fn canonicalize_iota_dims(dims: &mut Vec<i64>, perm: &mut Vec<i64>) {
    if dims.len() <= 1 {
        return;
    }
    loop {
        let mut changed = false;
        let n = dims.len();
        let mut old_to_new = vec![-1i64; n];
        let mut new_ndims = 0usize;
        for (i, &d) in dims.iter().enumerate() {
            if d != 1 {
                old_to_new[i] = new_ndims as i64;
                new_ndims += 1;
            }
        }
        if new_ndims != n {
            let mut new_idx = 0usize;
            for i in 0..n {
                let new_dim = old_to_new[i];
                if new_dim >= 0 {
                    dims[new_dim as usize] = dims[i];
                }
                let p = usize::try_from(perm[i])
                    .ok()
                    .and_then(|p| old_to_new.get(p).copied());
                if let Some(new_perm_dim) = p
                    && new_perm_dim >= 0
                    && new_idx < n
                {
                    perm[new_idx] = new_perm_dim;
                    new_idx += 1;
                }
            }
            dims.truncate(new_ndims);
            perm.truncate(new_ndims.min(new_idx.max(new_ndims)));
            perm.truncate(new_ndims);
        }
        let n = dims.len();
        let mut base = 0usize;
        for i in 1..n {
            let (Some(&base_dim), Some(&dim)) = (perm.get(base), perm.get(i)) else {
                break;
            };
            if base_dim + (i - base) as i64 == dim {
                let (b, d) = (base_dim as usize, dim as usize);
                if b < n && d < n {
                    dims[b] = dims[b].wrapping_mul(dims[d]);
                    dims[d] = 1;
                    changed = true;
                }
            } else {
                base = i;
            }
        }
        if !changed {
            break;
        }
    }
}

/// XLA's `TransposeKind`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum TransposeKind {
    Noop,
    Reshape,
    Transpose,
}

/// XLA's `GetTransposeKind`. `perm` holds valid dimension numbers.
fn transpose_kind(dims: &[i64], perm: &[usize]) -> TransposeKind {
    let mut kind = TransposeKind::Noop;
    let mut prev_non_one: i64 = -1;
    for (i, &d) in perm.iter().enumerate() {
        if dims[d] == 1 {
            if d != i && dims[i] != 1 {
                kind = TransposeKind::Reshape;
            }
            continue;
        }
        if d as i64 <= prev_non_one {
            return TransposeKind::Transpose;
        }
        prev_non_one = d as i64;
    }
    kind
}

/// XLA's `IotaTileAssignment::Create(dims, reshape_dims, transpose_perm)`:
/// the canonical `(reshape_dims, transpose_perm)`.
fn canonical_iota(reshape_dims: &[i64], transpose_perm: &[i64]) -> (Vec<i64>, Vec<i64>) {
    let mut dims = reshape_dims.to_vec();
    let mut perm = transpose_perm.to_vec();
    canonicalize_iota_dims(&mut dims, &mut perm);
    if dims.is_empty() {
        dims.push(1);
        perm.clear();
        perm.push(0);
    }
    (dims, perm)
}

/// XLA's `FullyDecanonicalize`: every reshape dimension split into its
/// prime factors, and how the transpose maps onto them.
struct Decanonicalized {
    reshape_dims: Vec<i64>,
    transpose_perm: Vec<usize>,
    perm_idx_to_original: Vec<usize>,
    original_to_perm_indices: Vec<Vec<usize>>,
}

fn fully_decanonicalize(reshape_dims: &[i64], transpose_perm: &[usize]) -> Decanonicalized {
    let mut new_dims = Vec::new();
    let mut old_to_new = vec![0usize; reshape_dims.len() + 1];
    for (i, &size) in reshape_dims.iter().enumerate() {
        let mut d = size;
        while d > 1 && d % 2 == 0 {
            new_dims.push(2);
            d /= 2;
        }
        let mut f = 3i64;
        while f.checked_mul(f).is_some_and(|ff| ff <= d) {
            while d % f == 0 {
                new_dims.push(f);
                d /= f;
            }
            f += 2;
        }
        if d > 1 {
            new_dims.push(d);
        }
        old_to_new[i + 1] = new_dims.len();
    }
    let mut out = Decanonicalized {
        reshape_dims: new_dims,
        transpose_perm: Vec::new(),
        perm_idx_to_original: Vec::new(),
        original_to_perm_indices: vec![Vec::new(); transpose_perm.len()],
    };
    for &old in transpose_perm {
        for j in old_to_new[old]..old_to_new[old + 1] {
            out.transpose_perm.push(j);
            out.perm_idx_to_original.push(old);
            out.original_to_perm_indices[old].push(out.transpose_perm.len() - 1);
        }
    }
    out
}

/// The dimension numbers of `perm` if it is a permutation of `0..n`.
fn as_permutation(perm: &[i64], n: usize) -> Option<Vec<usize>> {
    if perm.len() != n {
        return None;
    }
    let mut seen = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for &p in perm {
        let p = usize::try_from(p).ok().filter(|&p| p < n)?;
        if std::mem::replace(&mut seen[p], true) {
            return None;
        }
        out.push(p);
    }
    Some(out)
}

impl TileAssignment {
    /// An iota tile assignment of `dims` (XLA's
    /// `TileAssignment(dims, reshape_dims, transpose_perm)`, which
    /// canonicalizes `reshape_dims` and `transpose_perm`): the devices are
    /// `numpy.arange(n).reshape(reshape_dims).transpose(transpose_perm)`
    /// read in row-major order.
    ///
    /// Nothing is checked here, as XLA checks nothing (its parser reads
    /// `[2,2]<=[3]`); [`devices`](Self::devices) and the per-device
    /// functions report what does not fit.
    pub fn iota(dims: &[i64], reshape_dims: &[i64], transpose_perm: &[i64]) -> Self {
        let (reshape_dims, transpose_perm) = canonical_iota(reshape_dims, transpose_perm);
        TileAssignment {
            dims: dims.to_vec(),
            devices: Devices::Iota {
                reshape_dims,
                transpose_perm,
            },
        }
    }

    /// The plain iota `0, 1, 2, ...` of `dims` (XLA's
    /// `IotaTileAssignment::Create(dims)`): `[dims]<=[n]`.
    pub fn iota_of(dims: &[i64]) -> Self {
        TileAssignment {
            dims: dims.to_vec(),
            devices: Devices::Iota {
                reshape_dims: vec![product(dims)],
                transpose_perm: vec![0],
            },
        }
    }

    /// An explicit device list of `dims`, in row-major order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) when
    /// the number of devices is not the product of `dims`.
    pub fn from_devices(dims: &[i64], devices: Vec<i64>) -> Result<Self> {
        if checked_product(dims) != Some(devices.len() as i64) {
            return Err(Error::invalid_argument(format!(
                "tile assignment dimensions [{}] hold {} devices, but {} are given",
                join(dims, ","),
                product(dims),
                devices.len()
            )));
        }
        Ok(TileAssignment {
            dims: dims.to_vec(),
            devices: Devices::List(devices),
        })
    }

    /// An explicit list whose length is already checked.
    pub(crate) fn list(dims: Vec<i64>, devices: Vec<i64>) -> Self {
        TileAssignment {
            dims,
            devices: Devices::List(devices),
        }
    }

    /// The number of tiles along each dimension (XLA's `dimensions()`).
    pub fn dimensions(&self) -> &[i64] {
        &self.dims
    }

    /// The number of dimensions.
    pub fn num_dimensions(&self) -> usize {
        self.dims.len()
    }

    /// The number of devices, the product of the dimensions (XLA's
    /// `num_elements()`; for an explicit list, its length).
    pub fn num_elements(&self) -> i64 {
        match &self.devices {
            Devices::List(d) => d.len() as i64,
            Devices::Iota { .. } => product(&self.dims),
        }
    }

    /// The iota form, `(reshape_dims, transpose_perm)`, if this is one
    /// (XLA's `iota()`).
    pub fn iota_parts(&self) -> Option<(&[i64], &[i64])> {
        match &self.devices {
            Devices::Iota {
                reshape_dims,
                transpose_perm,
            } => Some((reshape_dims, transpose_perm)),
            Devices::List(_) => None,
        }
    }

    /// Whether this is an iota tile assignment (jaxlib's
    /// `is_tile_assignment_iota`).
    pub fn is_iota(&self) -> bool {
        matches!(self.devices, Devices::Iota { .. })
    }

    /// The first device (XLA's `first()`: 0 for an iota form).
    pub fn first(&self) -> i64 {
        match &self.devices {
            Devices::List(d) => d.first().copied().unwrap_or(0),
            Devices::Iota { .. } => 0,
        }
    }

    /// Whether the device values can be computed: an explicit list, or an
    /// iota whose element counts agree and whose transpose is a
    /// permutation.
    fn valid_for_values(&self) -> bool {
        self.check_values().is_ok()
    }

    fn check_values(&self) -> Result<()> {
        let Devices::Iota {
            reshape_dims,
            transpose_perm,
        } = &self.devices
        else {
            return Ok(());
        };
        let n = checked_product(&self.dims);
        let m = checked_product(reshape_dims);
        if n.is_none() || n != m {
            return Err(Error::invalid_argument(format!(
                "iota tile assignment {self} has {} devices in its tile assignment dimensions and {} in its iota",
                product(&self.dims),
                product(reshape_dims)
            )));
        }
        if as_permutation(transpose_perm, reshape_dims.len()).is_none() {
            return Err(Error::invalid_argument(format!(
                "iota tile assignment {self}: transpose T({}) is not a permutation of 0..{}",
                join(transpose_perm, ","),
                reshape_dims.len()
            )));
        }
        Ok(())
    }

    /// The device of the tile at row-major position `linear` (XLA's
    /// `IotaTileAssignment::value_at`). Requires `check_values` and
    /// `linear < num_elements`.
    fn device_at_linear(&self, linear: i64) -> i64 {
        match &self.devices {
            Devices::List(d) => d[linear as usize],
            Devices::Iota {
                reshape_dims,
                transpose_perm,
            } => {
                let n = reshape_dims.len();
                let mut reshape_index = [0i64; 64];
                let mut big;
                let index: &mut [i64] = if n <= 64 {
                    &mut reshape_index[..n]
                } else {
                    big = vec![0i64; n];
                    &mut big
                };
                let mut l = linear;
                for i in (0..n).rev() {
                    let dim = transpose_perm[i] as usize;
                    let size = reshape_dims[dim];
                    index[dim] = l % size;
                    l /= size;
                }
                let mut value = index[0];
                for i in 1..n {
                    value = value * reshape_dims[i] + index[i];
                }
                value
            }
        }
    }

    /// The device of the tile at `index` (XLA's `operator()`).
    ///
    /// # Errors
    ///
    /// When `index` does not address a tile, or the iota form does not
    /// describe a device array (see [`devices`](Self::devices)).
    pub fn device(&self, index: &[i64]) -> Result<i64> {
        self.check_values()?;
        if index.len() != self.dims.len()
            || index.iter().zip(&self.dims).any(|(&i, &d)| i < 0 || i >= d)
        {
            return Err(Error::invalid_argument(format!(
                "index {{{}}} is out of range for tile assignment dimensions [{}]",
                join(index, ","),
                join(&self.dims, ",")
            )));
        }
        let mut linear = 0i64;
        for (&i, &d) in index.iter().zip(&self.dims) {
            linear = linear * d + i;
        }
        Ok(self.device_at_linear(linear))
    }

    /// Every device in row-major order of the tiles (XLA's `array()`,
    /// jaxlib's `tile_assignment_devices()`).
    ///
    /// # Errors
    ///
    /// When an iota form does not describe a device array (its element
    /// counts differ, as in `[2,2]<=[3]`, or its transpose is not a
    /// permutation: XLA aborts on both), or when it holds more than
    /// [`MAX_LISTED_DEVICES`] devices.
    pub fn devices(&self) -> Result<Vec<i64>> {
        match &self.devices {
            Devices::List(d) => Ok(d.clone()),
            Devices::Iota { .. } => {
                self.check_values()?;
                let n = self.num_elements();
                check_listable(n)?;
                Ok((0..n).map(|i| self.device_at_linear(i)).collect())
            }
        }
    }

    /// Calls `f(index, device)` for every tile in row-major order (XLA's
    /// `Each`).
    ///
    /// # Errors
    ///
    /// As [`device`](Self::device) when the iota form describes no array.
    pub fn each(&self, mut f: impl FnMut(&[i64], i64)) -> Result<()> {
        self.check_values()?;
        let n = self.num_elements();
        if n <= 0 {
            return Ok(());
        }
        let mut index = vec![0i64; self.dims.len()];
        for linear in 0..n {
            f(&index, self.device_at_linear(linear));
            for k in (0..index.len()).rev() {
                index[k] += 1;
                if index[k] < self.dims[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        Ok(())
    }

    /// Whether `device` is one of the devices (XLA's `UsesDevice`: for an
    /// iota form, `device < num_elements()`).
    pub fn uses_device(&self, device: i64) -> bool {
        match &self.devices {
            Devices::List(d) => d.contains(&device),
            Devices::Iota { .. } => device < self.num_elements(),
        }
    }

    /// The tile index that `device` holds, if any (the first, in row-major
    /// order, as XLA's `TileIndexForDevice` keeps the last match of its
    /// walk over distinct devices).
    pub(crate) fn index_of(&self, device: i64) -> Result<Option<Vec<i64>>> {
        self.check_values()?;
        let mut found = None;
        self.each(|index, d| {
            if d == device {
                found = Some(index.to_vec());
            }
        })?;
        Ok(found)
    }

    /// The same devices under new dimensions (XLA's `Reshape`). The number
    /// of devices must be unchanged.
    pub(crate) fn reshape(&self, dims: Vec<i64>) -> Self {
        TileAssignment {
            dims,
            devices: match &self.devices {
                Devices::Iota {
                    reshape_dims,
                    transpose_perm,
                } => Devices::Iota {
                    reshape_dims: reshape_dims.clone(),
                    transpose_perm: transpose_perm.clone(),
                },
                Devices::List(d) => Devices::List(d.clone()),
            },
        }
    }

    /// The dimensions permuted by `perm` (XLA's `TileAssignment::Transpose`),
    /// staying in iota form where XLA's `IotaTileAssignment::Transpose`
    /// can, else listing the devices.
    pub(crate) fn transpose(&self, perm: &[usize]) -> Result<Self> {
        let kind = transpose_kind(&self.dims, perm);
        if kind == TransposeKind::Noop {
            return Ok(self.clone());
        }
        let new_dims: Vec<i64> = perm.iter().map(|&p| self.dims[p]).collect();
        if let Devices::Iota {
            reshape_dims,
            transpose_perm,
        } = &self.devices
            && let Some(t) = iota_transpose(&self.dims, reshape_dims, transpose_perm, perm, kind)?
        {
            return Ok(TileAssignment {
                dims: new_dims,
                devices: t,
            });
        }
        let devices = self.devices()?;
        let strides = row_major_strides(&self.dims);
        let n = devices.len();
        let mut out = Vec::with_capacity(n);
        let mut index = vec![0i64; new_dims.len()];
        for _ in 0..n {
            let mut src = 0i64;
            for (k, &i) in index.iter().enumerate() {
                src += i * strides[perm[k]];
            }
            out.push(devices[src as usize]);
            for k in (0..index.len()).rev() {
                index[k] += 1;
                if index[k] < new_dims[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        Ok(TileAssignment::list(new_dims, out))
    }

    /// This assignment with the devices listed (XLA's `shared_array_clone`).
    #[cfg(test)]
    pub(crate) fn listed(&self) -> Result<Self> {
        Ok(TileAssignment::list(self.dims.clone(), self.devices()?))
    }

    /// The explicit device list, if this is one.
    pub(crate) fn list_ref(&self) -> Option<&[i64]> {
        match &self.devices {
            Devices::List(d) => Some(d),
            Devices::Iota { .. } => None,
        }
    }

    /// XLA's `IotaTileAssignment::PrintArray` / the device list: what
    /// follows the dimensions in `devices=[...]`.
    pub(crate) fn fmt_array(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match &self.devices {
            Devices::Iota {
                reshape_dims,
                transpose_perm,
            } => {
                write!(f, "[{}]", join(reshape_dims, ","))?;
                if reshape_dims.len() > 1 {
                    write!(f, "T({})", join(transpose_perm, ","))?;
                }
                Ok(())
            }
            Devices::List(d) => write_joined(f, d, ","),
        }
    }
}

impl fmt::Display for TileAssignment {
    /// XLA's `TileAssignment::Print` without its `devices=` prefix:
    /// `[2,2]0,2,1,3` or `[2,2]<=[2,2]T(1,0)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", join(&self.dims, ","))?;
        if self.is_iota() {
            f.write_str("<=")?;
        }
        self.fmt_array(f)
    }
}

/// An error unless `n` devices may be listed.
pub(crate) fn check_listable(n: i64) -> Result<()> {
    if n > MAX_LISTED_DEVICES {
        return Err(Error::invalid_argument(format!(
            "a tile assignment of {n} devices is more than the {MAX_LISTED_DEVICES} this crate lists one by one"
        )));
    }
    Ok(())
}

fn row_major_strides(dims: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1];
    }
    strides
}

/// XLA's `IotaTileAssignment::Transpose`: the iota form of the transposed
/// assignment, if there is one. `perm` holds valid dimension numbers.
///
/// # Errors
///
/// Where XLA's `CHECK`s fail (an iota whose sizes do not match its
/// dimensions).
fn iota_transpose(
    dims: &[i64],
    reshape_dims: &[i64],
    transpose_perm: &[i64],
    perm: &[usize],
    kind: TransposeKind,
) -> Result<Option<Devices>> {
    let check = |what: &str| {
        Error::invalid_argument(format!(
            "the transpose of iota tile assignment [{}]<=[{}] fails XLA's CHECK {what}",
            join(dims, ","),
            join(reshape_dims, ",")
        ))
    };
    let new_dims: Vec<i64> = perm.iter().map(|&p| dims[p]).collect();
    let create = |r: &[i64], p: &[i64]| {
        let (reshape_dims, transpose_perm) = canonical_iota(r, p);
        Ok(Some(Devices::Iota {
            reshape_dims,
            transpose_perm,
        }))
    };
    if kind == TransposeKind::Reshape {
        return create(reshape_dims, transpose_perm);
    }
    if reshape_dims.len() == 1 {
        let p: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
        return create(dims, &p);
    }
    let Some(tperm) = as_permutation(transpose_perm, reshape_dims.len()) else {
        return Ok(None);
    };
    let ndims = dims.len();
    let mut is_pure_transpose = true;
    let mut non_one_dims: Vec<i64> = Vec::with_capacity(ndims);
    let mut one_to_non_one = vec![-1i64; ndims];
    for i in 0..ndims {
        let dim = dims[i];
        if dim == 1 {
            continue;
        }
        if non_one_dims.len() >= reshape_dims.len()
            || reshape_dims[tperm[non_one_dims.len()]] != dim
        {
            is_pure_transpose = false;
        }
        one_to_non_one[i] = non_one_dims.len() as i64;
        non_one_dims.push(dim);
    }
    if is_pure_transpose {
        if reshape_dims.len() != non_one_dims.len() {
            return Err(check("reshape_ndims_ == non_one_dims.size()"));
        }
        let mut new_perm = Vec::with_capacity(non_one_dims.len());
        for &p in perm {
            if dims[p] == 1 {
                continue;
            }
            new_perm.push(tperm[one_to_non_one[p] as usize] as i64);
        }
        return create(reshape_dims, &new_perm);
    }
    // Split every reshape dimension into primes and group the primes into
    // the (non-one) tile dimensions, major to minor; a prime that does not
    // divide may be swapped with a later one of the same original
    // dimension (XLA's look-ahead).
    if reshape_dims.iter().any(|&d| d <= 0) {
        return Ok(None);
    }
    let mut de = fully_decanonicalize(reshape_dims, &tperm);
    if non_one_dims.len() > de.reshape_dims.len() {
        return Err(check(
            "non_one_dims.size() <= decanonicalized_reshape_dims.size()",
        ));
    }
    let dn = de.reshape_dims.len();
    let mut grouped: Vec<Vec<usize>> = vec![Vec::new(); non_one_dims.len()];
    let candidate = |de: &mut Decanonicalized, target: i64, idx: usize| -> Option<usize> {
        let reshape_idx = de.transpose_perm[idx];
        let cand = de.reshape_dims[reshape_idx];
        if target % cand == 0 {
            return Some(reshape_idx);
        }
        let original = de.perm_idx_to_original[idx];
        for k in 0..de.original_to_perm_indices[original].len() {
            let cidx = de.original_to_perm_indices[original][k];
            if cidx > idx {
                let new_idx = de.transpose_perm[cidx];
                let new_cand = de.reshape_dims[new_idx];
                if target % new_cand == 0 {
                    de.reshape_dims.swap(reshape_idx, new_idx);
                    return Some(reshape_idx);
                }
            }
        }
        None
    };
    let mut tp_idx = 0usize;
    let mut i = 0usize;
    while i < non_one_dims.len() && tp_idx < dn {
        let mut target = non_one_dims[i];
        let mut r = candidate(&mut de, target, tp_idx);
        while let Some(ri) = r {
            let cand = de.reshape_dims[ri];
            target /= cand;
            grouped[i].push(ri);
            tp_idx += 1;
            if tp_idx >= dn {
                break;
            }
            r = candidate(&mut de, target, tp_idx);
        }
        if target != 1 {
            return Ok(None);
        }
        i += 1;
    }
    let mut flattened: Vec<i64> = Vec::with_capacity(reshape_dims.len());
    for &p in perm {
        let Ok(k) = usize::try_from(one_to_non_one[p]) else {
            continue;
        };
        flattened.extend(grouped[k].iter().map(|&g| g as i64));
    }
    if flattened.len() != de.transpose_perm.len() {
        return Err(check(&format!(
            "flattened_transpose_perm.size() == decanonicalized_transpose_perm.size() ({} vs. {})",
            flattened.len(),
            de.transpose_perm.len()
        )));
    }
    let _ = new_dims;
    create(&de.reshape_dims, &flattened)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iota(dims: &[i64], r: &[i64], p: &[i64]) -> TileAssignment {
        TileAssignment::iota(dims, r, p)
    }

    // The examples of XLA's comment on `CanonicalizeIotaDims`.
    #[test]
    fn canonical_forms_of_xlas_comment() {
        let c = |r: &[i64], p: &[i64]| {
            let t = iota(&[60], r, p);
            let mut s = String::new();
            t.fmt_array(&mut s).unwrap();
            s
        };
        assert_eq!(c(&[3, 4, 5], &[0, 1, 2]), "[60]");
        assert_eq!(c(&[3, 4, 5], &[2, 1, 0]), "[3,4,5]T(2,1,0)");
        assert_eq!(c(&[3, 4, 5], &[1, 2, 0]), "[3,20]T(1,0)");
        assert_eq!(c(&[3, 4, 5], &[1, 0, 2]), "[3,4,5]T(1,0,2)");
        assert_eq!(c(&[3, 4, 5], &[2, 0, 1]), "[12,5]T(1,0)");
        assert_eq!(c(&[1, 3, 1, 4, 1, 5], &[4, 3, 2, 5, 1, 0]), "[3,20]T(1,0)");
    }

    // XLA's header comment on `IotaTileAssignment::Create`: [4,4,1]<=[4,2,2]T(1,0,2)
    // is 0,1,4,5,8,9,12,13,2,3,6,7,10,11,14,15.
    #[test]
    fn values_of_xlas_header_example() {
        let t = iota(&[4, 4, 1], &[4, 2, 2], &[1, 0, 2]);
        assert_eq!(
            t.devices().unwrap(),
            [0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15]
        );
    }

    #[test]
    fn transposes_agree_with_the_listed_devices() {
        // Every transpose of every small iota: the iota result (when there
        // is one) lists the same devices as transposing the list.
        let shapes: &[(&[i64], &[i64], &[i64])] = &[
            (&[4, 6], &[24], &[0]),
            (&[4, 6], &[4, 6], &[1, 0]),
            (&[2, 3, 4], &[2, 12], &[1, 0]),
            (&[6, 4], &[4, 6], &[1, 0]),
            (&[2, 6, 2], &[2, 3, 4], &[2, 0, 1]),
            (&[4, 5, 24], &[15, 4, 8], &[1, 0, 2]),
        ];
        let perms3: [[usize; 3]; 6] = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        for &(dims, r, p) in shapes {
            let t = iota(dims, r, p);
            let list = t.listed().unwrap();
            let perms: Vec<Vec<usize>> = if dims.len() == 2 {
                vec![vec![0, 1], vec![1, 0]]
            } else {
                perms3.iter().map(|p| p.to_vec()).collect()
            };
            for perm in perms {
                let a = t.transpose(&perm).unwrap();
                let b = list.transpose(&perm).unwrap();
                assert_eq!(a.devices().unwrap(), b.devices().unwrap(), "{t} {perm:?}");
            }
        }
    }

    #[test]
    fn bad_iotas_list_nothing() {
        assert!(iota(&[2, 2], &[3], &[0]).devices().is_err());
        assert!(iota(&[2, 2], &[2, 2], &[0, 0]).devices().is_err());
        assert!(iota(&[2, -2], &[-4], &[0]).devices().is_err());
        assert!(iota(&[1 << 21], &[1 << 21], &[0]).devices().is_err());
        assert_eq!(iota(&[0], &[0], &[0]).devices().unwrap(), Vec::<i64>::new());
    }
}
