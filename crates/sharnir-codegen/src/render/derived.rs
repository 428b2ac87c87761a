//! The `Derived` constants of a generated module: parameter groups computed
//! once per parameter change instead of on every call, printed from the
//! program a plan lowered them to (`plan/derived.rs`).
//!
//! `Params::derived()` returns a `Derived` holding a copy of the parameters
//! and every constant group (`k0`, `k1`, …) the functions read; each
//! function `f` has a twin `f_with(d: &Derived, …)` that only reads them.

use crate::error::EmitError;
use crate::plan::derived::Derived;
use crate::print::printer::op_count_literal;
use crate::print::printer::Printer;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use sharnir_mech::Input;

impl Derived {
    /// The `Derived` struct, `Params::derived` and `OPS_DERIVED` (with an
    /// `fma` field, always zero, in fused modules, whose `OpCount` has one:
    /// the groups are computed once and not fused).
    /// An error if a folded constant is not finite, or if a group's symbol
    /// is not `Input::Derived` (a bug: no field name is invented for it).
    pub(crate) fn emit(&self, fma: bool) -> Result<TokenStream, EmitError> {
        let locals: Vec<String> = self.program.locals.iter().map(|l| l.name.clone()).collect();
        let printer = Printer {
            locals: &locals,
            slots: &[],
            lanes: None,
        };
        let mut statements = Vec::with_capacity(self.program.locals.len());
        for local in &self.program.locals {
            let name = Ident::new(&local.name, Span::call_site());
            let value = printer.expr(&local.value)?;
            statements.push(quote!(let #name = #value;));
        }
        let values = self
            .program
            .outputs
            .iter()
            .map(|o| printer.expr(o))
            .collect::<Result<Vec<_>, _>>()?;
        let fields = self
            .fields
            .iter()
            .map(|symbol| match symbol {
                Input::Derived(k) => Ok(Ident::new(&format!("k{k}"), Span::call_site())),
                other => Err(EmitError::Internal(format!(
                    "a parameter group is named `{other}`, which is no group's symbol"
                ))),
            })
            .collect::<Result<Vec<Ident>, EmitError>>()?;
        let docs = self
            .formulas
            .iter()
            .enumerate()
            .map(|(k, formula)| match formula {
                Some(formula) => format!(" Parameter group {k}: `{formula}`."),
                None => {
                    format!(" Parameter group {k} (its formula is long: see `Params::derived`).")
                }
            });
        let ops = op_count_literal(self.op_count(), fma);
        // `p` only where a group reads a parameter (no unused variable).
        let reads_parameters = quote!(#(#statements)* #(#values)*);
        let parameters = if crate::print::tokens::Usage::of(&reads_parameters, &["p"]).reads("p") {
            quote!(let p = self;)
        } else {
            TokenStream::new()
        };
        Ok(quote! {
            /// The parameters and the constant groups of parameters that the
            /// `*_with` functions read, computed once by [`Params::derived`].
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct Derived {
                /// The parameters the groups were computed from.
                pub params: Params,
                #(#[doc = #docs] pub #fields: Real,)*
            }

            impl Params {
                /// Computes the parameter groups; call again after changing a
                /// parameter.
                pub fn derived(&self) -> Derived {
                    #parameters
                    #(#statements)*
                    Derived { params: *self, #(#fields: #values,)* }
                }
            }

            /// Operation count of [`Params::derived`].
            pub const OPS_DERIVED: OpCount = #ops;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharnir_cas::Program;

    #[test]
    fn a_group_whose_symbol_is_no_group_is_an_error_not_an_invented_field() {
        let derived = Derived {
            fields: vec![Input::Named("cost.k0".into())],
            program: Program {
                locals: Vec::new(),
                outputs: vec![sharnir_cas::Term::Const(1.0)],
            },
            formulas: vec![Some("1".into())],
        };
        let error = derived.emit(false).map(|_| ()).unwrap_err();
        assert!(error.to_string().contains("`cost.k0`"), "{error}");
    }
}
