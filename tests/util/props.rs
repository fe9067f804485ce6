//! Property tests of the utilities: index maps are inverse, permuted and
//! aligned layouts are bitcasts, index iteration follows the layout.

use proptest::prelude::*;
use xla_shape::PrimitiveType as T;
use xla_shape::{ArrayShape, index_util as iu, shape_util as su};

/// Dimensions (0 to 5 each, rank 0 to 5) and a permutation for the layout.
fn shape_and_layout() -> impl Strategy<Value = ArrayShape> {
    (0usize..=5)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(0i64..=5, rank),
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
        .prop_map(|(dims, mtm)| su::make_shape_with_dense_layout(T::F32, &dims, &mtm))
}

/// As above with every dimension at least 1.
fn nonempty_shape() -> impl Strategy<Value = ArrayShape> {
    (0usize..=5)
        .prop_flat_map(|rank| {
            (
                prop::collection::vec(1i64..=5, rank),
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
        .prop_map(|(dims, mtm)| su::make_shape_with_dense_layout(T::F32, &dims, &mtm))
}

/// Products of consecutive groups of `factors`, cut where `cuts` says.
fn group(factors: &[i64], cuts: &[bool]) -> Vec<i64> {
    let mut dims = Vec::new();
    let mut p = 1;
    for (i, &f) in factors.iter().enumerate() {
        p *= f;
        if i + 1 == factors.len() || cuts[i] {
            dims.push(p);
            p = 1;
        }
    }
    dims
}

/// Two shapes with the same element count: the same factors grouped two
/// ways, the first with a random layout.
fn reshape_pair() -> impl Strategy<Value = (ArrayShape, ArrayShape)> {
    (1usize..=6)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(1i64..=4, n),
                prop::collection::vec(any::<bool>(), n),
                prop::collection::vec(any::<bool>(), n),
            )
        })
        .prop_flat_map(|(factors, a, b)| {
            let (da, db) = (group(&factors, &a), group(&factors, &b));
            let rank = da.len();
            (
                Just(da),
                Just(db),
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
        .prop_map(|(da, db, mtm)| {
            (
                su::make_shape_with_dense_layout(T::F32, &da, &mtm),
                su::make_shape(T::F32, &db),
            )
        })
}

proptest! {
    #[test]
    fn linear_and_multidimensional_indices_are_inverse(s in nonempty_shape(), seed in any::<u64>()) {
        let n = su::elements_in(&s).unwrap();
        let linear = (seed % n as u64) as i64;
        let index = iu::linear_index_to_multidimensional_index(&s, linear).unwrap();
        prop_assert!(iu::index_in_bounds(&s, &index));
        prop_assert_eq!(iu::multidimensional_index_to_linear_index(&s, &index).unwrap(), linear);
        // And from an index: each entry drawn from the seed.
        let mut rest = seed;
        let index: Vec<i64> = s.dimensions().iter().map(|&d| {
            let i = (rest % d as u64) as i64;
            rest /= d as u64;
            i
        }).collect();
        let linear = iu::multidimensional_index_to_linear_index(&s, &index).unwrap();
        prop_assert!((0..n).contains(&linear));
        prop_assert_eq!(iu::linear_index_to_multidimensional_index(&s, linear).unwrap(), index);
    }

    #[test]
    fn permute_dimensions_is_a_bitcast_transpose(
        (s, perm) in shape_and_layout().prop_flat_map(|s| {
            let rank = s.rank() as i64;
            (Just(s), Just((0..rank).collect::<Vec<_>>()).prop_shuffle())
        }),
    ) {
        let p = su::permute_dimensions(&perm, &s).unwrap();
        prop_assert!(su::transpose_is_bitcast(&s, &p, &perm, false).unwrap());
        for (i, &from) in perm.iter().enumerate() {
            prop_assert_eq!(p.dimensions()[i], s.dimensions()[from as usize]);
        }
    }

    #[test]
    fn align_layouts_gives_a_bitcast_reshape((input, output) in reshape_pair()) {
        if let Some(aligned) = su::align_layouts(&input, &output).unwrap() {
            prop_assert!(su::reshape_is_bitcast(&input, &aligned, false).unwrap());
            prop_assert_eq!(aligned.dimensions(), output.dimensions());
        }
        // A row-major input can always be aligned.
        let descending = su::make_shape(T::F32, input.dimensions());
        let aligned = su::align_layouts(&descending, &output).unwrap();
        prop_assert!(aligned.is_some());
        prop_assert!(su::reshape_is_bitcast(&descending, &aligned.unwrap(), false).unwrap());
    }

    #[test]
    fn for_each_index_visits_every_index_once_in_layout_order(s in shape_and_layout()) {
        let mut next = 0i64;
        let mut ok = true;
        su::for_each_index(&s, |index| {
            // The k-th index visited is the element at physical position k.
            ok &= iu::multidimensional_index_to_linear_index(&s, index).ok() == Some(next);
            next += 1;
            true
        }).unwrap();
        prop_assert!(ok);
        prop_assert_eq!(next, su::elements_in(&s).unwrap());
    }

    #[test]
    fn indices_iterator_matches_for_each_index(
        dims in prop::collection::vec(0i64..=5, 3),
        mtm in Just(vec![0i64, 1, 2]).prop_shuffle(),
    ) {
        let s = su::make_shape_with_dense_layout(T::F32, &dims, &mtm);
        let mut visited = Vec::new();
        su::for_each_index(&s, |i| { visited.push([i[0], i[1], i[2]]); true }).unwrap();
        let it = su::indices::<3>(&s).unwrap();
        prop_assert_eq!(it.len(), visited.len());
        prop_assert_eq!(it.collect::<Vec<_>>(), visited);
    }
}

/// Walks `s` with `indices::<N>` three ways and compares each with
/// `for_each_index`: `next()` alone (with an exact `size_hint` at every
/// step and `None` after the end), `next()` for `split` indices then
/// `fold` for the rest, and `count` after `split` indices.
fn check_indices<const N: usize>(s: &ArrayShape, split: usize) -> Result<(), TestCaseError> {
    let mut visited = Vec::new();
    su::for_each_index(s, |i| {
        visited.push(<[i64; N]>::try_from(i).unwrap());
        true
    })
    .unwrap();

    let mut it = su::indices::<N>(s).unwrap();
    let mut by_next = Vec::new();
    loop {
        let left = visited.len() - by_next.len();
        prop_assert_eq!(it.size_hint(), (left, Some(left)));
        match it.next() {
            Some(i) => by_next.push(i),
            None => break,
        }
    }
    prop_assert_eq!(it.next(), None);
    prop_assert_eq!(&by_next, &visited);

    let mut it = su::indices::<N>(s).unwrap();
    let mut mixed = Vec::new();
    for _ in 0..split {
        match it.next() {
            Some(i) => mixed.push(i),
            None => break,
        }
    }
    prop_assert_eq!(it.clone().count(), visited.len() - mixed.len());
    let mixed = it.fold(mixed, |mut v, i| {
        v.push(i);
        v
    });
    prop_assert_eq!(&mixed, &visited);
    Ok(())
}

proptest! {
    #[test]
    fn indices_by_next_and_by_fold_match_for_each_index(
        s in shape_and_layout(),
        split in 0usize..200,
    ) {
        match s.rank() {
            0 => check_indices::<0>(&s, split)?,
            1 => check_indices::<1>(&s, split)?,
            2 => check_indices::<2>(&s, split)?,
            3 => check_indices::<3>(&s, split)?,
            4 => check_indices::<4>(&s, split)?,
            5 => check_indices::<5>(&s, split)?,
            r => prop_assert!(false, "rank {} out of the strategy's range", r),
        }
    }
}

#[test]
fn indices_of_a_scalar_and_of_an_empty_array() {
    let scalar = su::make_shape(T::F32, &[]);
    assert_eq!(
        su::indices::<0>(&scalar).unwrap().collect::<Vec<_>>(),
        [[0i64; 0]]
    );
    let empty = su::make_shape(T::F32, &[3, 0]);
    assert_eq!(su::indices::<2>(&empty).unwrap().count(), 0);
    assert!(su::indices::<2>(&scalar).is_err());
}
