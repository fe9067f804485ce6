//! [`ProgramShape`]: the signature of a computation.

use crate::model::shape::Shape;

/// The parameter shapes, parameter names and result shape of a computation
/// (XLA's `ProgramShape`).
///
/// ```
/// use xla_shape::{ArrayShape, PrimitiveType, ProgramShape, Shape};
/// let f32_2 = Shape::from(ArrayShape::new(PrimitiveType::F32, [2]).unwrap());
/// let p = ProgramShape::new(vec![("x".into(), f32_2.clone()), ("".into(), Shape::Token)], f32_2);
/// assert_eq!(p.to_string(), "(x: f32[2], (unknown): token[]) -> f32[2]");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProgramShape {
    parameters: Vec<Shape>,
    parameter_names: Vec<String>,
    result: Shape,
}

impl ProgramShape {
    /// A program shape from `(name, shape)` parameters and a result.
    pub fn new(parameters: Vec<(String, Shape)>, result: Shape) -> Self {
        let (parameter_names, parameters) = parameters.into_iter().unzip();
        ProgramShape {
            parameters,
            parameter_names,
            result,
        }
    }

    /// The parameter shapes.
    #[doc(alias = "xla_client.ProgramShape.parameter_shapes")]
    pub fn parameters(&self) -> &[Shape] {
        &self.parameters
    }

    /// The parameter names (`""` where unnamed), one per parameter.
    pub fn parameter_names(&self) -> &[String] {
        &self.parameter_names
    }

    /// The result shape.
    #[doc(alias = "xla_client.ProgramShape.result_shape")]
    pub fn result(&self) -> &Shape {
        &self.result
    }

    /// Appends a parameter.
    pub fn add_parameter(&mut self, name: impl Into<String>, shape: Shape) {
        self.parameter_names.push(name.into());
        self.parameters.push(shape);
    }

    /// Replaces the result.
    pub fn set_result(&mut self, result: Shape) {
        self.result = result;
    }
}
