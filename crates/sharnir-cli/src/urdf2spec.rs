//! `cargo xtask urdf2spec` (`sharnir urdf2spec`): a URDF converted to spec
//! text, for reading or editing before generating from it.

use crate::args::Urdf2specArgs;
use crate::{convert, Context};

/// `cargo xtask urdf2spec`: the converted spec on stdout, warnings on stderr.
pub(crate) fn run(args: Urdf2specArgs, context: &Context) -> miette::Result<()> {
    let options = sharnir_urdf::Options {
        folded_twin: args.folded_twin,
        ..args.options.options()
    };
    let conversion = convert(&context.root(), &args.urdf, &options)?;
    print!("{}", conversion.text);
    Ok(())
}
