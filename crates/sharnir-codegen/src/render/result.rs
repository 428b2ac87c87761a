//! The result of a generated function, by its [`Shape`]: its Rust type,
//! its value built from the outputs, and — for a function split into parts
//! ([`crate::render::body`]) — its zero and the place of every output in it, where
//! the parts write the outputs one by one. The outputs come in the order
//! `Shape` documents (matrices row-major, a pose's rotation before its
//! position, the joint-space mass matrix before the bias and gravity).

use crate::render::contacts;
use crate::vocabulary::{ContactFacts, Shape};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The Rust type of a function's result.
pub(crate) fn result_type(shape: Shape) -> TokenStream {
    match shape {
        Shape::JointVector | Shape::LimitForces => quote!([Real; NV]),
        Shape::PositionVector => quote!([Real; NQ]),
        Shape::JointMatrix => quote!([[Real; NV]; NV]),
        Shape::JointMatrixPair => quote!((JointMatrix, JointMatrix)),
        Shape::JointMatrixTriple => quote!((JointMatrix, JointMatrix, JointMatrix)),
        Shape::Regressor => quote!([[Real; 10 * NB]; NV]),
        Shape::DriveRegressor => quote!([[Real; 10 * NB + ND]; NV]),
        Shape::BaseParameters => quote!([Real; NBP]),
        Shape::BaseRegressor => quote!([[Real; NBP]; NV]),
        Shape::ResidualDerivatives => {
            quote!((JointMatrix, JointMatrix, ConstraintMatrix, ConstraintMatrix))
        }
        Shape::Pair => quote!((Real, Real)),
        Shape::Motion => quote!(([Real; NP], [Real; NP], [Real; NP])),
        Shape::MixedDynamics => quote!(([Real; NV], [Real; NP])),
        Shape::Poses => quote!([Pose; NB]),
        Shape::BodyJacobians => quote!([[[Real; NV]; 6]; NB]),
        Shape::ConstraintVector => quote!([Real; NC]),
        Shape::ContactVector => quote!([Real; N_CONTACTS]),
        Shape::Reactions => quote!([[Real; 6]; N_CUT]),
        Shape::JointReactions => quote!([[Real; 6]; N_DETACHABLE]),
        Shape::ConstraintJacobian => quote!([[Real; NV]; NC]),
        Shape::JointSpace => quote!(JointSpace),
    }
}

/// The result as one expression of the printed `outputs`; `dof` is the
/// row length of matrices, `contacts` the joints' contacts (for the
/// contact law).
pub(crate) fn result_value(
    shape: Shape,
    dof: usize,
    outputs: &[TokenStream],
    contacts: &[ContactFacts],
) -> TokenStream {
    // A result that is zero throughout is written one way whatever its
    // size: `[0.0; NV]`, `[[0.0; NV]; NV]`, … (as a split function's
    // parts start from).
    let zero_throughout = !outputs.is_empty() && outputs.iter().all(|o| o.to_string() == "0.0");
    if zero_throughout && shape != Shape::LimitForces {
        return zero(shape);
    }
    let row = dof.max(1);
    let rows = |entries: &[TokenStream], length: usize| -> Vec<TokenStream> {
        entries
            .chunks(length)
            .map(|row| quote!([#(#row),*]))
            .collect()
    };
    match shape {
        Shape::JointVector
        | Shape::PositionVector
        | Shape::ConstraintVector
        | Shape::ContactVector
        | Shape::BaseParameters => quote!([#(#outputs),*]),
        Shape::BaseRegressor if outputs.is_empty() => zero(shape),
        Shape::JointMatrix | Shape::ConstraintJacobian => {
            let rows = rows(outputs, row);
            quote!([#(#rows),*])
        }
        Shape::Regressor | Shape::DriveRegressor | Shape::BaseRegressor => {
            let rows = rows(outputs, (outputs.len() / row).max(1));
            quote!([#(#rows),*])
        }
        Shape::JointMatrixPair | Shape::JointMatrixTriple => {
            let matrices = outputs.chunks(row * row).map(|matrix| {
                let rows = rows(matrix, row);
                quote!([#(#rows),*])
            });
            quote!((#(#matrices),*))
        }
        Shape::ResidualDerivatives => {
            let (square, wide) = outputs.split_at((2 * row * row).min(outputs.len()));
            let half = wide.len() / 2;
            let matrices = square
                .chunks(row * row)
                .chain([&wide[..half], &wide[half..]])
                .map(|matrix| {
                    let rows = rows(matrix, row);
                    quote!([#(#rows),*])
                });
            quote!((#(#matrices),*))
        }
        Shape::Pair => quote!((#(#outputs),*)),
        Shape::Motion => {
            let parts = outputs.chunks((outputs.len() / 3).max(1));
            quote!((#([#(#parts),*]),*))
        }
        Shape::MixedDynamics => {
            let (accelerations, drives) = outputs.split_at(dof.min(outputs.len()));
            quote!(([#(#accelerations),*], [#(#drives),*]))
        }
        Shape::Poses => {
            let poses = outputs.chunks(12).map(|pose| {
                let (rotation, position) = pose.split_at(9.min(pose.len()));
                let rotation = rows(rotation, 3);
                quote!(Pose { rotation: [#(#rotation),*], position: [#(#position),*] })
            });
            quote!([#(#poses),*])
        }
        Shape::BodyJacobians => {
            let bodies = outputs.chunks(6 * row).map(|body| {
                let rows = rows(body, row);
                quote!([#(#rows),*])
            });
            quote!([#(#bodies),*])
        }
        Shape::LimitForces => contacts::law_value(contacts, outputs),
        Shape::Reactions | Shape::JointReactions => {
            let wrenches = rows(outputs, 6);
            quote!([#(#wrenches),*])
        }
        Shape::JointSpace => {
            let (mass, terms) = outputs.split_at((dof * dof).min(outputs.len()));
            let (bias, gravity) = terms.split_at(dof.min(terms.len()));
            let mass = rows(mass, row);
            quote!(JointSpace {
                mass_matrix: [#(#mass),*],
                bias: [#(#bias),*],
                gravity: [#(#gravity),*],
            })
        }
    }
}

/// The result with every entry zero, which a split function's parts then
/// fill in.
pub(crate) fn zero(shape: Shape) -> TokenStream {
    match shape {
        Shape::JointVector | Shape::LimitForces => quote!([0.0; NV]),
        Shape::PositionVector => quote!([0.0; NQ]),
        Shape::JointMatrix => quote!([[0.0; NV]; NV]),
        Shape::Regressor => quote!([[0.0; 10 * NB]; NV]),
        Shape::DriveRegressor => quote!([[0.0; 10 * NB + ND]; NV]),
        Shape::BaseParameters => quote!([0.0; NBP]),
        Shape::BaseRegressor => quote!([[0.0; NBP]; NV]),
        Shape::JointMatrixPair => quote!(([[0.0; NV]; NV], [[0.0; NV]; NV])),
        Shape::JointMatrixTriple => {
            quote!(([[0.0; NV]; NV], [[0.0; NV]; NV], [[0.0; NV]; NV]))
        }
        Shape::ResidualDerivatives => quote!((
            [[0.0; NV]; NV],
            [[0.0; NV]; NV],
            [[0.0; NV]; NC],
            [[0.0; NV]; NC]
        )),
        Shape::Pair => quote!((0.0, 0.0)),
        Shape::Motion => quote!(([0.0; NP], [0.0; NP], [0.0; NP])),
        Shape::MixedDynamics => quote!(([0.0; NV], [0.0; NP])),
        Shape::Poses => quote!(
            [Pose {
                rotation: [[0.0; 3]; 3],
                position: [0.0; 3]
            }; NB]
        ),
        Shape::BodyJacobians => quote!([[[0.0; NV]; 6]; NB]),
        Shape::ConstraintVector => quote!([0.0; NC]),
        Shape::ContactVector => quote!([0.0; N_CONTACTS]),
        Shape::Reactions => quote!([[0.0; 6]; N_CUT]),
        Shape::JointReactions => quote!([[0.0; 6]; N_DETACHABLE]),
        Shape::ConstraintJacobian => quote!([[0.0; NV]; NC]),
        Shape::JointSpace => quote!(JointSpace {
            mass_matrix: [[0.0; NV]; NV],
            bias: [0.0; NV],
            gravity: [0.0; NV],
        }),
    }
}

/// Where each of `count` outputs goes in the result (`[i][j]`,
/// `.bias[i]`, `[b].rotation[i][j]`, …), for the parts of a split function
/// to write it there; `None` for the contact law, whose result is computed
/// from its outputs rather than made of them.
pub(crate) fn places(shape: Shape, dof: usize, count: usize) -> Option<Vec<TokenStream>> {
    let row = dof.max(1);
    let index = |i: usize| Literal::usize_unsuffixed(i);
    let place = |j: usize| -> TokenStream {
        match shape {
            Shape::JointVector
            | Shape::PositionVector
            | Shape::ConstraintVector
            | Shape::ContactVector
            | Shape::BaseParameters
            | Shape::LimitForces => {
                let j = index(j);
                quote!([#j])
            }
            Shape::JointMatrix | Shape::ConstraintJacobian => {
                let (i, j) = (index(j / row), index(j % row));
                quote!([#i][#j])
            }
            Shape::Regressor | Shape::DriveRegressor | Shape::BaseRegressor => {
                let width = (count / row).max(1);
                let (i, j) = (index(j / width), index(j % width));
                quote!([#i][#j])
            }
            Shape::JointMatrixPair | Shape::JointMatrixTriple => {
                let (matrix, entry) = (index(j / (row * row)), j % (row * row));
                let (i, k) = (index(entry / row), index(entry % row));
                quote!(.#matrix[#i][#k])
            }
            Shape::ResidualDerivatives => {
                let square = 2 * row * row;
                let half = count.saturating_sub(square) / 2;
                let (matrix, entry) = if j < square {
                    (j / (row * row), j % (row * row))
                } else if j < square + half {
                    (2, j - square)
                } else {
                    (3, j - square - half)
                };
                let (m, i, k) = (index(matrix), index(entry / row), index(entry % row));
                quote!(.#m[#i][#k])
            }
            Shape::Pair => {
                let j = index(j);
                quote!(.#j)
            }
            Shape::Motion => {
                let np = (count / 3).max(1);
                let (part, i) = (index(j / np), index(j % np));
                quote!(.#part[#i])
            }
            Shape::MixedDynamics => {
                let (part, i) = if j < dof { (0, j) } else { (1, j - dof) };
                let (part, i) = (index(part), index(i));
                quote!(.#part[#i])
            }
            Shape::Poses => {
                let (body, entry) = (index(j / 12), j % 12);
                if entry < 9 {
                    let (i, k) = (index(entry / 3), index(entry % 3));
                    quote!([#body].rotation[#i][#k])
                } else {
                    let i = index(entry - 9);
                    quote!([#body].position[#i])
                }
            }
            Shape::BodyJacobians => {
                let (body, i, k) = (index(j / (6 * row)), index(j / row % 6), index(j % row));
                quote!([#body][#i][#k])
            }
            Shape::Reactions | Shape::JointReactions => {
                let (joint, i) = (index(j / 6), index(j % 6));
                quote!([#joint][#i])
            }
            Shape::JointSpace => {
                if j < dof * dof {
                    let (i, k) = (index(j / row), index(j % row));
                    quote!(.mass_matrix[#i][#k])
                } else if j < dof * dof + dof {
                    let i = index(j - dof * dof);
                    quote!(.bias[#i])
                } else {
                    let i = index(j - dof * dof - dof);
                    quote!(.gravity[#i])
                }
            }
        }
    };
    (shape != Shape::LimitForces).then(|| (0..count).map(place).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::{Expr, Member};

    /// The entry of `value` at `place`, followed step by step: `[i]` into
    /// an array or tuple, `.field` into a struct, `.i` into a tuple.
    fn entry<'e>(value: &'e Expr, place: &TokenStream) -> &'e Expr {
        let path = place.to_string().replace(' ', "");
        let mut here = value;
        for step in path
            .split_inclusive(']')
            .flat_map(|s| s.split_inclusive('.'))
        {
            let step = step.trim_end_matches('.');
            if step.is_empty() {
                continue;
            }
            let (field, index) = match step.split_once('[') {
                Some((field, index)) => (field, index.trim_end_matches(']')),
                None => (step, ""),
            };
            if !field.is_empty() {
                here = match here {
                    Expr::Struct(s) => {
                        &s.fields
                            .iter()
                            .find(|f| matches!(&f.member, Member::Named(n) if n == field))
                            .expect("a field of the struct")
                            .expr
                    }
                    Expr::Tuple(t) => &t.elems[field.parse::<usize>().expect("a tuple index")],
                    other => panic!("no field {field} in {}", quote!(#other)),
                };
            }
            if !index.is_empty() {
                let i: usize = index.parse().expect("an index");
                here = match here {
                    Expr::Array(a) => &a.elems[i],
                    other => panic!("no index {i} in {}", quote!(#other)),
                };
            }
        }
        here
    }

    /// Every output's place names the entry that [`result_value`] fills
    /// with that output, for every shape made of its outputs.
    #[test]
    fn every_output_is_placed_where_the_result_value_puts_it() {
        let dof = 3;
        let shapes = [
            (Shape::JointVector, dof),
            (Shape::PositionVector, 4),
            (Shape::JointMatrix, dof * dof),
            (Shape::JointMatrixPair, 2 * dof * dof),
            (Shape::JointMatrixTriple, 3 * dof * dof),
            (Shape::Regressor, dof * 20),
            (Shape::DriveRegressor, dof * 22),
            (Shape::ResidualDerivatives, 2 * dof * dof + 2 * 2 * dof),
            (Shape::Pair, 2),
            (Shape::Motion, 6),
            (Shape::MixedDynamics, dof + 2),
            (Shape::Poses, 24),
            (Shape::BodyJacobians, 2 * 6 * dof),
            (Shape::JointSpace, dof * dof + 2 * dof),
            (Shape::ConstraintVector, 2),
            (Shape::ConstraintJacobian, 2 * dof),
            (Shape::Reactions, 12),
            (Shape::JointReactions, 6),
            (Shape::ContactVector, 2),
        ];
        for (shape, count) in shapes {
            let outputs: Vec<TokenStream> = (0..count)
                .map(|k| {
                    let name =
                        proc_macro2::Ident::new(&format!("o{k}"), proc_macro2::Span::call_site());
                    quote!(#name)
                })
                .collect();
            let value: Expr = syn::parse2(result_value(shape, dof, &outputs, &[])).expect("parses");
            let places = places(shape, dof, count).expect("a result made of its outputs");
            for (k, place) in places.iter().enumerate() {
                let found = entry(&value, place);
                assert_eq!(
                    quote!(#found).to_string(),
                    format!("o{k}"),
                    "{shape:?} at {place}"
                );
            }
            syn::parse2::<Expr>(zero(shape)).expect("the zero parses");
        }
        assert!(places(Shape::LimitForces, dof, 5).is_none());
    }
}
