//! `index_util::linear_index_to_multidimensional_index_into`: the inverse
//! of `multidimensional_index_to_linear_index` for every position of
//! several layouts, and its errors.

use xla_shape::PrimitiveType as T;
use xla_shape::{ErrorKind, index_util, shape_util};

#[test]
fn inverse_of_the_linear_index() {
    for (dims, mtm) in [
        (&[5i64][..], &[0i64][..]),
        (&[3, 4], &[0, 1]),
        (&[2, 3, 4, 5], &[1, 3, 0, 2]),
        (&[2, 1, 3, 1, 2], &[4, 2, 0, 1, 3]),
    ] {
        let s = shape_util::make_shape_with_dense_layout(T::F32, dims, mtm);
        let mut seen = Vec::new();
        let mut index = vec![-1i64; dims.len()];
        for linear in 0..shape_util::elements_in(&s).unwrap() {
            index_util::linear_index_to_multidimensional_index_into(&s, linear, &mut index)
                .unwrap();
            assert!(index_util::index_in_bounds(&s, &index), "{s} {index:?}");
            assert_eq!(
                index_util::multidimensional_index_to_linear_index(&s, &index).unwrap(),
                linear
            );
            seen.push(index.clone());
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len() as i64, shape_util::elements_in(&s).unwrap());
    }
}

#[test]
fn errors() {
    let s = shape_util::make_shape_with_dense_layout(T::F32, &[2, 3], &[1, 0]);
    let mut index = [0i64; 2];
    for linear in [-1, 6, i64::MAX, i64::MIN] {
        let e = index_util::linear_index_to_multidimensional_index_into(&s, linear, &mut index)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(
            e.to_string(),
            format!(
                "linear index {linear} is out of bounds for shape f32[2,3]{{1,0}} of 6 elements"
            )
        );
    }
    let e = index_util::linear_index_to_multidimensional_index_into(&s, 0, &mut [0; 3]);
    assert_eq!(e.unwrap_err().kind(), ErrorKind::InvalidArgument);
    let empty = shape_util::make_shape_with_dense_layout(T::F32, &[2, 0], &[1, 0]);
    assert!(
        index_util::linear_index_to_multidimensional_index_into(&empty, 0, &mut index).is_err()
    );
}

/// `LinearIndexer::ravel` gives `multidimensional_index_to_linear_index`'s
/// number for every index of several layouts (each linear position comes
/// back from `linear_index_to_multidimensional_index`), and its error for
/// an index of the wrong length.
#[test]
fn the_prepared_ravel_is_the_linear_index() {
    for (dims, mtm) in [
        (&[][..], &[][..]),
        (&[5i64][..], &[0i64][..]),
        (&[3, 4], &[0, 1]),
        (&[2, 3, 4, 5], &[1, 3, 0, 2]),
        (&[2, 1, 3, 1, 2, 3, 2], &[4, 2, 6, 0, 1, 5, 3]),
    ] {
        let s = shape_util::make_shape_with_dense_layout(T::F32, dims, mtm);
        let map = index_util::LinearIndexer::new(&s).unwrap();
        for linear in 0..shape_util::elements_in(&s).unwrap() {
            let index = index_util::linear_index_to_multidimensional_index(&s, linear).unwrap();
            assert_eq!(map.ravel(&index).unwrap(), linear, "{s} {index:?}");
        }
        // The strides are those of `GetDimensionStride`.
        for (d, &stride) in map.strides().iter().enumerate() {
            assert_eq!(
                index_util::get_dimension_stride(&s, d as i64).unwrap(),
                stride
            );
        }
        let long = vec![0i64; dims.len() + 1];
        let (a, b) = (
            map.ravel(&long).unwrap_err(),
            index_util::multidimensional_index_to_linear_index(&s, &long).unwrap_err(),
        );
        assert_eq!((a.kind(), a.to_string()), (b.kind(), b.to_string()));
    }
    // A shape without a layout has no linear order.
    let s = xla_shape::ArrayShape::new(T::F32, [2, 3])
        .unwrap()
        .with_layout(None)
        .unwrap();
    assert_eq!(
        index_util::LinearIndexer::new(&s).unwrap_err().kind(),
        index_util::multidimensional_index_to_linear_index(&s, &[0, 0])
            .unwrap_err()
            .kind()
    );
}
