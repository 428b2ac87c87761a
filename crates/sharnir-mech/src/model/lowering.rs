//! Spec expressions lowered into the expression pool, under one parameter
//! mode: parameters become symbols read at run time, or their values folded
//! in as exact constants; derived parameters are inlined.

use crate::model::inputs::Input;
use crate::model::rotation::rodrigues;
use crate::model::vec3::{Mat3, Vec3, Vec3Ops};
use sharnir_cas::{Coeff, Id, Pool};
use sharnir_spec::{ElementaryRotation, Expr, ExprKind, Function, ParameterValue, Spec, SpecError};
use std::collections::HashMap;

/// How spec parameters appear in derived expressions.
///
/// It lives with the lowering because the lowering is the one place that
/// reads it: every other step sees only the expressions it produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParameterMode {
    /// Numeric parameters stay symbols, read from `Params` at run time.
    Runtime,
    /// Parameter values are folded into the expressions as constants.
    Folded,
}

/// Turns spec expressions into pool expressions under one parameter mode.
pub(crate) struct ExprLowering {
    pub(crate) pool: Pool,
    parameters: HashMap<String, Id>,
}

impl ExprLowering {
    pub(crate) fn new(spec: &Spec, mode: ParameterMode) -> ExprLowering {
        let mut pool = Pool::new();
        let mut parameters = HashMap::new();
        for p in &spec.parameters {
            if let ParameterValue::Number(value) = p.value {
                let id = match mode {
                    ParameterMode::Runtime => pool.input(Input::Parameter(p.name.clone())),
                    ParameterMode::Folded => pool.num(Coeff::from_decimal_f64(value)),
                };
                parameters.insert(p.name.clone(), id);
            }
        }
        ExprLowering { pool, parameters }
    }

    pub(crate) fn expr(&mut self, spec: &Spec, e: &Expr) -> Result<Id, SpecError> {
        self.expr_guarded(spec, e, &mut Vec::new())
    }

    /// Lowers a value that must be positive (a mass, a moment of inertia),
    /// refusing it at its span when it is a number that is not positive once
    /// computed exactly: `sin(pi) * pi` is 3.8e-16 in floating point, which
    /// validation accepts as a mass, but exactly zero here.
    pub(crate) fn positive(&mut self, spec: &Spec, e: &Expr, what: &str) -> Result<Id, SpecError> {
        let id = self.expr(spec, e)?;
        match self.pool.as_num(id).map(|c| c.to_f64()) {
            Some(value) if value <= 0.0 => Err(spec.error_at(
                e.span,
                format!("{what} is {value} when computed exactly; it must be positive"),
                "not positive when computed exactly",
                "sin and cos of multiples of pi/2 are exact (sin(pi) is 0, not 1.2e-16), \
                 and so are differences of equal values: write the value so it stays positive",
            )),
            _ => Ok(id),
        }
    }

    /// Lowers an expression that may also read `variables` (time and the
    /// coordinates in force expressions), whose names the spec validated
    /// not to clash with parameters.
    pub(crate) fn expr_with(
        &mut self,
        spec: &Spec,
        e: &Expr,
        variables: &[(String, Id)],
    ) -> Result<Id, SpecError> {
        for (name, id) in variables {
            self.parameters.insert(name.clone(), *id);
        }
        let lowered = self.expr(spec, e);
        for (name, _) in variables {
            self.parameters.remove(name);
        }
        lowered
    }

    /// Lowers `e`, refusing at its span a value the algebra finds infinite
    /// although the spec's floating-point check passed it: `10 / sin(pi)`
    /// is about 8e16 in floating point, but `sin(pi)` is exactly zero here.
    fn expr_guarded(
        &mut self,
        spec: &Spec,
        e: &Expr,
        visiting: &mut Vec<String>,
    ) -> Result<Id, SpecError> {
        let id = self.expr_node(spec, e, visiting)?;
        let infinite = self
            .pool
            .as_num(id)
            .is_some_and(|c| !c.to_f64().is_finite());
        if infinite {
            return Err(not_finite(spec, e, "the value is not finite"));
        }
        Ok(id)
    }

    fn expr_node(
        &mut self,
        spec: &Spec,
        e: &Expr,
        visiting: &mut Vec<String>,
    ) -> Result<Id, SpecError> {
        Ok(match &e.kind {
            ExprKind::Number(x) => self.pool.num(Coeff::from_decimal_f64(*x)),
            ExprKind::Pi => self.pool.pi(),
            ExprKind::Parameter(name) => return self.parameter(spec, name, e, visiting),
            ExprKind::Neg(a) => {
                let a = self.expr_guarded(spec, a, visiting)?;
                self.pool.neg(a)
            }
            ExprKind::Add(a, b)
            | ExprKind::Sub(a, b)
            | ExprKind::Mul(a, b)
            | ExprKind::Div(a, b) => {
                let (x, y) = (
                    self.expr_guarded(spec, a, visiting)?,
                    self.expr_guarded(spec, b, visiting)?,
                );
                match &e.kind {
                    ExprKind::Add(..) => self.pool.add(x, y),
                    ExprKind::Sub(..) => self.pool.sub(x, y),
                    ExprKind::Mul(..) => self.pool.mul(x, y),
                    _ if self.pool.is_zero(y) => {
                        return Err(not_finite(spec, e, "the divisor is exactly zero"));
                    }
                    _ => self.pool.div(x, y),
                }
            }
            ExprKind::Pow(a, n) => {
                let a = self.expr_guarded(spec, a, visiting)?;
                if *n < 0 && self.pool.is_zero(a) {
                    return Err(not_finite(spec, e, "zero to a negative power"));
                }
                self.pool.powi(a, *n)
            }
            ExprKind::Call(f, a) => {
                let a = self.expr_guarded(spec, a, visiting)?;
                match f {
                    Function::Sin => self.pool.sin(a),
                    Function::Cos => self.pool.cos(a),
                    Function::Sqrt => self.pool.sqrt(a),
                }
            }
        })
    }

    /// A parameter's expression: its symbol (or folded value), or the lowered
    /// definition of a derived parameter.
    fn parameter(
        &mut self,
        spec: &Spec,
        name: &str,
        at: &Expr,
        visiting: &mut Vec<String>,
    ) -> Result<Id, SpecError> {
        if let Some(&id) = self.parameters.get(name) {
            return Ok(id);
        }
        let definition = spec.parameters.iter().find(|p| p.name == name);
        let Some(sharnir_spec::Parameter {
            value: ParameterValue::Derived(expr),
            ..
        }) = definition
        else {
            return Err(spec.error_at(
                at.span,
                format!("unknown parameter `{name}`"),
                "not a parameter",
                "declare it in [parameters]",
            ));
        };
        if visiting.iter().any(|v| v == name) {
            return Err(spec.error_at(
                at.span,
                format!("parameter `{name}` is defined in terms of itself"),
                "cycle",
                "break the cycle of derived parameters",
            ));
        }
        visiting.push(name.to_owned());
        let id = self.expr_guarded(spec, expr, visiting)?;
        visiting.pop();
        self.parameters.insert(name.to_owned(), id);
        Ok(id)
    }

    pub(crate) fn vec3(&mut self, spec: &Spec, v: &[Expr; 3]) -> Result<Vec3, SpecError> {
        Ok([
            self.expr(spec, &v[0])?,
            self.expr(spec, &v[1])?,
            self.expr(spec, &v[2])?,
        ])
    }

    /// The product of the elementary rotations, in order.
    pub(crate) fn rotation(
        &mut self,
        spec: &Spec,
        rotations: &[ElementaryRotation],
    ) -> Result<Mat3, SpecError> {
        let mut r = self.pool.identity3();
        for rotation in rotations {
            let m = match rotation {
                ElementaryRotation::X(angle) => self.elementary(spec, 0, angle)?,
                ElementaryRotation::Y(angle) => self.elementary(spec, 1, angle)?,
                ElementaryRotation::Z(angle) => self.elementary(spec, 2, angle)?,
                ElementaryRotation::AxisAngle { axis, angle } => {
                    let axis = axis.map(|a| self.pool.num(Coeff::from_decimal_f64(a)));
                    let angle = self.expr(spec, angle)?;
                    rodrigues(&mut self.pool, axis, angle)
                }
                ElementaryRotation::Matrix(rows) => {
                    let mut m = self.pool.identity3();
                    for (i, row) in rows.iter().enumerate() {
                        for (j, entry) in row.iter().enumerate() {
                            m[i][j] = self.expr(spec, entry)?;
                        }
                    }
                    m
                }
            };
            r = self.pool.mat_mul(&r, &m);
        }
        Ok(r)
    }

    fn elementary(&mut self, spec: &Spec, axis: usize, angle: &Expr) -> Result<Mat3, SpecError> {
        let angle = self.expr(spec, angle)?;
        let (z, o) = (self.pool.zero(), self.pool.one());
        let mut unit = [z; 3];
        unit[axis] = o;
        Ok(rodrigues(&mut self.pool, unit, angle))
    }
}

/// A value that is infinite once computed exactly, at the expression.
fn not_finite(spec: &Spec, e: &Expr, reason: &str) -> SpecError {
    spec.error_at(
        e.span,
        format!("value is not finite when computed exactly: {reason}"),
        reason,
        "sin and cos of multiples of pi/2 are exact (sin(pi) is 0, not 1.2e-16), and so are \
         differences of equal values: rewrite the expression so it does not divide by them",
    )
}
