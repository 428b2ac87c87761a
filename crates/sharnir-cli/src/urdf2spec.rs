//! `cargo xtask urdf2spec` (`sharnir urdf2spec`): a URDF converted to spec
//! text, for reading or editing before generating from it.

use crate::args::Urdf2specArgs;
use crate::{convert, Context};

/// `cargo xtask urdf2spec`: the converted spec on stdout, warnings on stderr.
pub(crate) fn run(args: Urdf2specArgs, context: &Context) -> miette::Result<()> {
    let conversion = convert(&context.root(), &args.urdf, &args.options.options())?;
    print!("{}", conversion.text);
    Ok(())
}
