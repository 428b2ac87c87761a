//! The statements of a generated function's body, from its program: one
//! `let` per local, sines paired with the cosines of the same angle and
//! runs of such pairs computed together, and, for a program too long for
//! the compiler to optimise in time linear in its size, the parts the body
//! is split into (see [`SPLIT_ABOVE`]). [`crate::render::function`] wraps them
//! into the function.

use crate::error::EmitError;
use crate::print::lines::{Line, LONGEST};
use crate::print::printer::Printer;
use crate::render::lanes::LaneView;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use sharnir_cas::{LanePairs, Program, Term};

/// A function with more locals than this is emitted in parts of at most
/// [`PART`] locals, each an `#[inline(never)]` function that keeps the
/// values later parts read in one `live` array and writes the outputs it
/// can into the result: `rustc` and LLVM take time that grows faster than
/// the length of one straight-line function (instruction scheduling,
/// register allocation and the SLP vectorizer work over one huge block),
/// so a long chain's module compiled in minutes. Every bundled module's
/// functions are below it; a 20-link spatial chain's Coriolis matrix
/// (7 900 locals) is above.
pub(crate) const SPLIT_ABOVE: usize = 1500;

/// The most locals of one part of a split function. Small enough that
/// every part is cheap to optimise (a 40-link chain's body Jacobians: LLVM
/// 21 s with parts of 1 000 locals, 11 s with 300, 8 s with 150, where
/// the SLP vectorizer's cost per block dominates), large enough that
/// calls and the values passed through `live` cost little at run time
/// (the 20-link chain's split functions, in parts of 150 that write their
/// outputs, ran as fast or up to 2.2 times faster than in parts of 1 000
/// read back at the end; `docs/performance.md`, "Generation scaling").
pub(crate) const PART: usize = 150;

/// A function that is not split but has at least this many locals, and
/// whose outputs have places, writes each output into the result right
/// after the statement that defines the last local it reads
/// ([`written_early`]) instead of in one value at the end. In that value
/// every output is live until the end, and the compiler keeps hundreds of
/// them on the stack and reloads them to store them; written early, the
/// result is zeroed first and the entries written as computed. Measured on
/// the AVX copies (AMD Zen 3, `docs/performance.md`, "Writing long
/// functions' outputs as they are computed"): 9 to 10 % faster at 780 to
/// 1 041 locals (the mass matrices of 14- and 16-link spatial chains and of
/// Talos), no different at 592 (a 12-link chain's), 3 to 15 % slower at 107 and
/// 194 (Panda's and Solo12's), where zeroing the result costs more than
/// the spills it saves.
pub(crate) const WRITTEN_EARLY_FROM: usize = 700;

/// How a body computes the sines and cosines of four angles at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quads {
    /// By the module's `sin_cos_quad`: the build's routine.
    Helper,
    /// By its `lanes` parameter's `sin_cos_quad` (a function with an AVX
    /// copy, [`crate::render::dispatch`]): the build's routine in the function,
    /// the AVX2 routine in its copy.
    Lanes,
}

/// The statements of a function's `_with` body and the parts it calls.
pub(crate) struct Body {
    /// The `let`s of the body (for a split function: the `live` array and
    /// the calls of its parts).
    pub(crate) statements: Vec<Line>,
    /// Every output, as the body reads it; `None` where the parts of a
    /// split function write the outputs into the result themselves (the
    /// `out` argument of every part, at the places [`body`] was given).
    pub(crate) outputs: Option<Vec<TokenStream>>,
    /// The parts of a split function, in order; empty otherwise.
    pub(crate) parts: Vec<Part>,
}

/// One part of a split function.
pub(crate) struct Part {
    /// Its statements: `let`s, then the values later parts read stored
    /// into `live`, then the outputs whose locals are all defined by now
    /// written into `out`.
    pub(crate) statements: Vec<Line>,
    /// The length of the `live` array.
    pub(crate) live: usize,
    /// Whether it writes any output into `out`.
    pub(crate) writes_outputs: bool,
}

/// One statement of a body: a local, a sine and a cosine of the same
/// angle computed together by one `sin_cos` (one argument reduction
/// instead of two; the cosine's local moves up to the sine's, which only
/// locals defined earlier can have needed), or two or four such statements
/// in a row computed together by one `sin_cos_pair` or `sin_cos_quad`,
/// which evaluate the angles in the lanes of one vector register where the
/// target has them (`math.rs`, `crate::support`).
enum Statement<'p> {
    Let(usize),
    /// A lane statement: the local and the next, its partner, computed
    /// together (`crate::render::lanes`).
    Lane(usize),
    SinCos(usize, usize, &'p Term),
    SinCosPair([(usize, usize, &'p Term); 2]),
    SinCosQuad([(usize, usize, &'p Term); 4]),
}

impl Statement<'_> {
    /// The locals the statement defines.
    fn defines(&self) -> impl Iterator<Item = usize> {
        let both = |angles: &[(usize, usize, &Term)]| -> Vec<usize> {
            angles.iter().flat_map(|(i, j, _)| [*i, *j]).collect()
        };
        match self {
            Statement::Let(i) => vec![*i],
            Statement::Lane(i) => vec![*i, *i + 1],
            Statement::SinCos(i, j, _) => vec![*i, *j],
            Statement::SinCosPair(angles) => both(angles),
            Statement::SinCosQuad(angles) => both(angles),
        }
        .into_iter()
    }

    /// The statement: a `let` written on one line where it fits
    /// ([`Printer::text`]), its tokens otherwise.
    fn print(
        &self,
        program: &Program,
        printer: &Printer<'_>,
        quads: Quads,
    ) -> Result<Line, EmitError> {
        if let Statement::Let(i) = self {
            if let Some(local) = program.locals.get(*i) {
                let name = &local.name;
                let room = LONGEST.checked_sub("let  = ;".len() + name.len());
                if let Some(value) = room.and_then(|room| printer.text(&local.value, room)) {
                    return Ok(Line::Text(format!("let {name} = {value};")));
                }
            }
        }
        self.tokens(program, printer, quads).map(Line::Tokens)
    }

    /// The statement's tokens.
    fn tokens(
        &self,
        program: &Program,
        printer: &Printer<'_>,
        quads: Quads,
    ) -> Result<TokenStream, EmitError> {
        let ident = |i: usize| {
            let name = program.locals.get(i).map_or("_", |l| l.name.as_str());
            Ident::new(name, Span::call_site())
        };
        // `(s, c)` patterns and the angles of a run.
        let run = |angles: &[(usize, usize, &Term)]| {
            let mut patterns = Vec::with_capacity(angles.len());
            let mut arguments = Vec::with_capacity(angles.len());
            for (i, j, angle) in angles {
                let (sine, cosine) = (ident(*i), ident(*j));
                patterns.push(quote!((#sine, #cosine)));
                arguments.push(printer.expr(angle)?);
            }
            Ok::<_, EmitError>((patterns, arguments))
        };
        Ok(match self {
            Statement::SinCos(i, j, angle) => {
                let (sine, cosine) = (ident(*i), ident(*j));
                let angle = printer.expr(angle)?;
                quote!(let (#sine, #cosine) = sin_cos(#angle);)
            }
            Statement::SinCosPair(angles) => {
                let (patterns, arguments) = run(angles)?;
                quote!(let (#(#patterns),*) = sin_cos_pair(#(#arguments),*);)
            }
            Statement::SinCosQuad(angles) => {
                let (patterns, arguments) = run(angles)?;
                let routine = match quads {
                    Quads::Helper => quote!(sin_cos_quad),
                    Quads::Lanes => quote!(lanes.sin_cos_quad),
                };
                quote!(let [#(#patterns),*] = #routine(#(#arguments),*);)
            }
            Statement::Lane(i) => {
                return Err(EmitError::Internal(format!(
                    "lane statement {i} printed without its lanes"
                )))
            }
            Statement::Let(i) => {
                let name = ident(*i);
                let value = program
                    .locals
                    .get(*i)
                    .map(|l| printer.expr(&l.value))
                    .transpose()?
                    .unwrap_or_default();
                quote!(let #name = #value;)
            }
        })
    }
}

/// Sines and cosines of angles in a row, as statements: four by one
/// `sin_cos_quad` (at most four are ever pending), two by one
/// `sin_cos_pair`, a last one alone by `sin_cos`.
fn flush<'p>(pending: &mut Vec<(usize, usize, &'p Term)>, statements: &mut Vec<Statement<'p>>) {
    match pending[..] {
        [a, b, c, d] => statements.push(Statement::SinCosQuad([a, b, c, d])),
        [a, b, c] => {
            statements.push(Statement::SinCosPair([a, b]));
            statements.push(Statement::SinCos(c.0, c.1, c.2));
        }
        [a, b] => statements.push(Statement::SinCosPair([a, b])),
        [a] => statements.push(Statement::SinCos(a.0, a.1, a.2)),
        _ => {}
    }
    pending.clear();
}

/// The program's statements in order, sines paired with the cosines of
/// the same angle, and such pairs in a row computed together, four or two
/// at a time (`flush`). The pairs whose angle reads no local — the
/// coordinates and their sums, which every dynamics function needs — come
/// first, all of them, so that they fill the vector lanes of
/// `sin_cos_quad` and `sin_cos_pair` instead of going one by one through
/// `libm`'s scalar `sincos`, whose branches on the angle's size mispredict
/// at random states (the portable build's recursive Newton–Euler on UR5:
/// 5 such calls, half its time on an AMD EPYC). After them, an angle that
/// reads a sine or cosine of the pending run starts a run of its own.
fn statements<'p>(program: &'p Program, lanes: Option<&LaneView<'_>>) -> Vec<Statement<'p>> {
    let locals = &program.locals;
    let mut paired_cosine = vec![None; locals.len()];
    let mut is_paired = vec![false; locals.len()];
    for (i, local) in locals.iter().enumerate() {
        if let Term::Sin(angle) = &local.value {
            let cosine =
                locals.iter().enumerate().skip(i + 1).find(|(j, l)| {
                    !is_paired[*j] && matches!(&l.value, Term::Cos(b) if b == angle)
                });
            if let Some((j, _)) = cosine {
                paired_cosine[i] = Some(j);
                is_paired[j] = true;
            }
        }
    }
    let mut statements = Vec::with_capacity(locals.len());
    let mut pending: Vec<(usize, usize, &Term)> = Vec::with_capacity(4);
    // First every sine and cosine whose angle reads no local (the
    // coordinates, their sums): all at the top, four or two at a time.
    let mut hoisted = vec![false; locals.len()];
    for (i, local) in locals.iter().enumerate() {
        if let (Term::Sin(angle), Some(j)) = (&local.value, paired_cosine[i]) {
            if angle.locals_read().is_empty() {
                hoisted[i] = true;
                pending.push((i, j, angle));
                if pending.len() == 4 {
                    flush(&mut pending, &mut statements);
                }
            }
        }
    }
    flush(&mut pending, &mut statements);
    let rest = locals
        .iter()
        .enumerate()
        .filter(|(i, _)| !is_paired[*i] && !hoisted[*i]);
    for (i, local) in rest {
        match (&local.value, paired_cosine[i]) {
            (Term::Sin(angle), Some(j)) => {
                let reads_run = angle
                    .locals_read()
                    .iter()
                    .any(|r| pending.iter().any(|(k, l, _)| r == k || r == l));
                if reads_run {
                    flush(&mut pending, &mut statements);
                }
                pending.push((i, j, angle));
                if pending.len() == 4 {
                    flush(&mut pending, &mut statements);
                }
            }
            _ if lanes.is_some_and(|l| l.is_partner(i)) => {}
            _ => {
                flush(&mut pending, &mut statements);
                statements.push(if lanes.is_some_and(|l| l.is_lane(i)) {
                    Statement::Lane(i)
                } else {
                    Statement::Let(i)
                });
            }
        }
    }
    flush(&mut pending, &mut statements);
    statements
}

/// The body of `program`'s `_with` function: straight-line `let`s (lane
/// statements among them where `lanes` pairs its branches,
/// `crate::render::lanes`; `program` is then the pairs' program), or, past
/// [`SPLIT_ABOVE`] locals, calls of parts that pass on what later parts
/// read through one `live` array. `places` gives, per output, where in
/// the result it goes (`[i][j]`, `.bias[i]`, …): with them, each part
/// writes the outputs it can compute straight into the result, so that no
/// statement of the function grows with the number of outputs (a `_with`
/// body reading thousands of `live` values into one array literal was one
/// basic block that LLVM scheduled in superlinear time); without them
/// (the contact law, written around its outputs), the outputs are read
/// from `live` at the end. A function that is not split writes its
/// outputs as one value at the end, unless it is long
/// ([`WRITTEN_EARLY_FROM`]) and has places. `quads` says how four angles
/// are computed at once.
pub(crate) fn body(
    program: &Program,
    places: Option<&[TokenStream]>,
    quads: Quads,
    lanes: Option<&LanePairs>,
) -> Result<Body, EmitError> {
    let mut view = lanes.map(LaneView::new);
    let names: Vec<String> = program.locals.iter().map(|l| l.name.clone()).collect();
    let statements = statements(program, view.as_ref());
    // The lines of one statement: a lane statement's by the view.
    let print = |statement: &Statement<'_>,
                 printer: &Printer<'_>,
                 view: Option<&LaneView<'_>>|
     -> Result<Vec<Line>, EmitError> {
        match (statement, view) {
            (Statement::Lane(k), Some(view)) => Ok(view
                .statement(program, &names, printer.slots, *k)?
                .into_iter()
                .map(Line::Tokens)
                .collect()),
            _ => Ok(vec![statement.print(program, printer, quads)?]),
        }
    };
    if program.locals.len() <= SPLIT_ABOVE {
        let printer = Printer {
            locals: &names,
            slots: &[],
            lanes: None,
        };
        let lines = statements
            .iter()
            .map(|statement| print(statement, &printer, view.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        let early = places.filter(|_| program.locals.len() >= WRITTEN_EARLY_FROM);
        return Ok(match early {
            Some(places) => Body {
                statements: written_early(program, &statements, lines, places, &printer)?,
                outputs: None,
                parts: Vec::new(),
            },
            None => Body {
                statements: lines.into_iter().flatten().collect(),
                outputs: Some(print_all(&program.outputs, &printer)?),
                parts: Vec::new(),
            },
        });
    }
    // The part of every statement, and of every local.
    let mut part_of = vec![0; program.locals.len()];
    let mut groups: Vec<Vec<&Statement<'_>>> = vec![Vec::new()];
    let mut in_part = 0;
    for statement in &statements {
        let count = statement.defines().count();
        if in_part + count > PART {
            groups.push(Vec::new());
            in_part = 0;
        }
        in_part += count;
        let k = groups.len() - 1;
        for i in statement.defines() {
            part_of[i] = k;
        }
        groups[k].push(statement);
    }
    // Where each output is read: with places, by the first part at whose
    // end every local it reads is defined (none for a zero output, the
    // result's initial value); without, by the body after every part.
    let after_parts = groups.len();
    let reader: Vec<Option<usize>> = program
        .outputs
        .iter()
        .map(|output| match places {
            Some(_) => written_at(output, &part_of),
            None => Some(after_parts),
        })
        .collect();
    // A local read by a later part, or by an output read later, lives in
    // `live`; a lane statement read by a later part stores both lanes
    // there, which the later part reads as a pair.
    let mut is_live = vec![false; program.locals.len()];
    for (k, group) in groups.iter().enumerate() {
        for statement in group {
            let reads: Vec<usize> = match (statement, &view) {
                (Statement::Lane(j), Some(view)) => view.reads(*j),
                _ => statement
                    .defines()
                    .filter_map(|i| program.locals.get(i))
                    .flat_map(|l| l.value.locals_read())
                    .collect(),
            };
            for read in reads {
                if part_of[read] < k {
                    is_live[read] = true;
                    if let Some(view) = view.as_mut() {
                        view.read_back(read);
                    }
                }
            }
        }
    }
    for (output, part) in program.outputs.iter().zip(&reader) {
        if let Some(k) = *part {
            for read in output.locals_read() {
                is_live[read] |= part_of[read] < k;
            }
        }
    }
    let mut live = 0;
    let slot: Vec<Option<usize>> = is_live
        .iter()
        .map(|&kept| {
            kept.then(|| {
                live += 1;
                live - 1
            })
        })
        .collect();
    let mut parts = Vec::with_capacity(groups.len());
    for (k, group) in groups.iter().enumerate() {
        // In part k, the locals of earlier parts are read from `live`.
        let earlier: Vec<Option<usize>> = (0..program.locals.len())
            .map(|i| slot[i].filter(|_| part_of[i] < k))
            .collect();
        let printer = Printer {
            locals: &names,
            slots: &earlier,
            lanes: None,
        };
        let mut tokens = Vec::with_capacity(group.len());
        for statement in group {
            tokens.extend(print(statement, &printer, view.as_ref())?);
        }
        for statement in group {
            for i in statement.defines() {
                if let Some(s) = slot[i] {
                    tokens.push(Line::Text(format!("live[{s}] = {};", names[i])));
                }
            }
        }
        let mut writes_outputs = false;
        if let Some(places) = places {
            for ((output, part), place) in program.outputs.iter().zip(&reader).zip(places) {
                if *part == Some(k) {
                    let value = printer.expr(output)?;
                    tokens.push(Line::Tokens(quote!(out #place = #value;)));
                    writes_outputs = true;
                }
            }
        }
        parts.push(Part {
            statements: tokens,
            live,
            writes_outputs,
        });
    }
    let size = Literal::usize_unsuffixed(live);
    let outputs = match places {
        Some(_) => None,
        None => {
            let printer = Printer {
                locals: &names,
                slots: &slot,
                lanes: None,
            };
            Some(print_all(&program.outputs, &printer)?)
        }
    };
    Ok(Body {
        statements: vec![Line::Tokens(quote!(let mut live = [0.0; #size];))],
        outputs,
        parts,
    })
}

/// `lines`, the printed `statements` (each one's lines), with each output written into the
/// result (`out`, at its place) right after the statement that defines the
/// last local it reads; outputs that read no local first, zeros not at all
/// (the result's initial value). See [`WRITTEN_EARLY_FROM`].
fn written_early(
    program: &Program,
    statements: &[Statement<'_>],
    lines: Vec<Vec<Line>>,
    places: &[TokenStream],
    printer: &Printer<'_>,
) -> Result<Vec<Line>, EmitError> {
    // after[i]: how many statements precede local i's, its own included.
    let mut after = vec![0; program.locals.len()];
    for (k, statement) in statements.iter().enumerate() {
        for i in statement.defines() {
            after[i] = k + 1;
        }
    }
    // writes[k]: the outputs written after the first k statements.
    let mut writes: Vec<Vec<Line>> = (0..=statements.len()).map(|_| Vec::new()).collect();
    for (output, place) in program.outputs.iter().zip(places) {
        let Some(k) = written_at(output, &after) else {
            continue;
        };
        let value = printer.expr(output)?;
        if let Some(written) = writes.get_mut(k) {
            written.push(Line::Tokens(quote!(out #place = #value;)));
        }
    }
    let mut writes = writes.into_iter();
    let mut all: Vec<Line> = writes.next().unwrap_or_default();
    for (printed, written) in lines.into_iter().zip(writes) {
        all.extend(printed);
        all.extend(written);
    }
    Ok(all)
}

/// Where `output` is written into the result: after the latest `at[i]`
/// of the locals `i` it reads (0 for none); `None` for a zero, the
/// result's initial value. `at` numbers the parts of a split body, or the
/// statements of a long one.
fn written_at(output: &Term, at: &[usize]) -> Option<usize> {
    if matches!(output, Term::Const(c) if c.to_bits() == 0) {
        return None;
    }
    Some(
        output
            .locals_read()
            .into_iter()
            .map(|i| at.get(i).copied().unwrap_or(0))
            .max()
            .unwrap_or(0),
    )
}

/// `terms`, printed.
fn print_all(terms: &[Term], printer: &Printer<'_>) -> Result<Vec<TokenStream>, EmitError> {
    terms.iter().map(|t| printer.expr(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sharnir_cas::{Local, Symbol};
    use std::collections::HashMap;

    /// A chain of `n` locals, each reading the one before and one half-way
    /// back (so that reads cross the parts), with a sine and cosine of the
    /// same angle to pair, and outputs reading early and late locals, a
    /// zero and an input.
    fn chain(n: usize) -> Program {
        let local = |i: usize| Box::new(Term::Local(i));
        let q = || Box::new(Term::Input(Symbol::Position(0)));
        let mut locals = vec![
            Local {
                name: "s0".to_owned(),
                value: Term::Sin(q()),
            },
            Local {
                name: "c0".to_owned(),
                value: Term::Cos(q()),
            },
        ];
        for i in 2..n {
            let value = Term::Add(Box::new(Term::Mul(local(i - 1), q())), local(i / 2));
            locals.push(Local {
                name: format!("t{i}"),
                value,
            });
        }
        Program {
            locals,
            outputs: vec![
                Term::Local(1),
                Term::Add(local(n - 1), local(3)),
                Term::Const(0.0),
                *q(),
            ],
        }
    }

    /// Locals of a program long enough to be split, in a last part that
    /// is not full.
    const LONG: usize = SPLIT_ABOVE + PART / 2;

    /// `[j]` for every output `j` of `program`: the places of a vector result.
    fn places(program: &Program) -> Vec<TokenStream> {
        (0..program.outputs.len())
            .map(|j| {
                let j = Literal::usize_unsuffixed(j);
                quote!([#j])
            })
            .collect()
    }

    /// The statements of `body` as text, `;`-separated.
    fn text(statements: &[Line]) -> String {
        statements
            .iter()
            .map(|s| s.to_tokens().to_string())
            .collect()
    }

    /// A split body with its split undone on the text: its parts'
    /// statements without the stores into `live` and the writes into `out`,
    /// every `live[s]` read as the local stored there, and each output
    /// written into `out`, by its place, with the part that writes it.
    struct Unsplit {
        statements: String,
        stored: HashMap<String, String>,
        written: HashMap<String, (String, usize)>,
    }

    impl Unsplit {
        fn of(split: &Body) -> Unsplit {
            let mut stored = HashMap::new();
            let mut written = HashMap::new();
            let mut statements = String::new();
            for (k, part) in split.parts.iter().enumerate() {
                let text: String = part
                    .statements
                    .iter()
                    .map(|s| s.to_tokens().to_string() + " ")
                    .collect();
                for statement in text.split_inclusive(" ;") {
                    let statement = statement.trim_start();
                    if let Some(store) = statement.strip_prefix("live [") {
                        let (slot, rest) = store.split_once("] = ").expect("a store");
                        stored.insert(slot.to_owned(), rest.trim_end_matches(" ;").to_owned());
                    } else if let Some(write) = statement.strip_prefix("out ") {
                        let (place, rest) = write.split_once(" = ").expect("a write");
                        let value = rest.trim_end_matches(" ;").to_owned();
                        let earlier = written.insert(place.replace(' ', ""), (value, k));
                        assert!(earlier.is_none(), "{place} written twice");
                    } else {
                        statements.push_str(statement);
                    }
                }
            }
            let mut unsplit = Unsplit {
                statements: String::new(),
                stored,
                written: HashMap::new(),
            };
            unsplit.statements = unsplit.read(statements);
            unsplit.written = written
                .into_iter()
                .map(|(place, (value, k))| (place, (unsplit.read(value), k)))
                .collect();
            unsplit
        }

        /// `text` with every `live[s]` read as the local stored there.
        fn read(&self, mut text: String) -> String {
            for (slot, name) in &self.stored {
                text = text.replace(&format!("live [{slot}]"), name);
            }
            text
        }
    }

    /// The body of `program` printed without parts, as text.
    fn straight(program: &Program) -> String {
        let names: Vec<String> = program.locals.iter().map(|l| l.name.clone()).collect();
        let printer = Printer {
            locals: &names,
            slots: &[],
            lanes: None,
        };
        statements(program, None)
            .iter()
            .map(|s| {
                s.print(program, &printer, Quads::Helper)
                    .expect("prints")
                    .to_tokens()
                    .to_string()
            })
            .collect::<String>()
            .replace(' ', "")
    }

    #[test]
    fn a_long_body_writes_each_output_right_after_its_last_local() {
        let program = chain(WRITTEN_EARLY_FROM);
        let places = places(&program);
        let early = body(&program, Some(&places), Quads::Helper, None).expect("prints");
        assert!(early.outputs.is_none() && early.parts.is_empty());
        let statements: Vec<String> = early
            .statements
            .iter()
            .map(|line| line.to_tokens().to_string().replace(' ', ""))
            .collect();
        // The input first, `c0` after the sine and cosine, the last sum after
        // the last local; the zero is the result's initial value.
        let mut want: Vec<String> = vec!["out[3]=q[0];".to_owned()];
        want.extend(straight(&program).split_inclusive(';').map(str::to_owned));
        let after_trig = want
            .iter()
            .position(|line| line.contains("sin_cos("))
            .expect("the sine and cosine");
        want.insert(after_trig + 1, "out[0]=c0;".to_owned());
        want.push(format!("out[1]=t{}+t3;", WRITTEN_EARLY_FROM - 1));
        assert_eq!(statements, want);
        // One local fewer, or no places: the outputs at the end.
        let shorter = chain(WRITTEN_EARLY_FROM - 1);
        let late = body(&shorter, Some(&places), Quads::Helper, None).expect("prints");
        assert_eq!(late.outputs.map(|o| o.len()), Some(4));
        let unplaced = body(&program, None, Quads::Helper, None).expect("prints");
        assert!(unplaced.outputs.is_some());
    }

    #[test]
    fn a_split_body_is_the_straight_body_with_live_values_passed_on() {
        let short = body(&chain(SPLIT_ABOVE), None, Quads::Helper, None).expect("prints");
        assert!(short.parts.is_empty());
        let program = chain(LONG);
        let split = body(&program, None, Quads::Helper, None).expect("prints");
        assert_eq!(split.parts.len(), LONG.div_ceil(PART));
        assert!(split.parts.iter().all(|part| !part.writes_outputs));
        // Undone, the split is, token for token, the body printed without
        // parts; the outputs are read from `live` at the end.
        let unsplit = Unsplit::of(&split);
        assert!(unsplit.written.is_empty());
        assert_eq!(unsplit.statements.replace(' ', ""), straight(&program));
        let outputs: Vec<String> = split
            .outputs
            .expect("read at the end")
            .iter()
            .map(|o| unsplit.read(o.to_string()))
            .collect();
        let last = format!("t{} + t3", LONG - 1);
        assert_eq!(outputs, ["c0", &last, "0.0", "q [0]"]);
        assert_eq!(
            text(&split.statements),
            format!("let mut live = [0.0 ; {}] ;", unsplit.stored.len())
        );
    }

    #[test]
    fn a_split_body_with_places_writes_each_output_once_where_its_locals_are() {
        let program = chain(LONG);
        let places = places(&program);
        let split = body(&program, Some(&places), Quads::Helper, None).expect("prints");
        assert!(split.outputs.is_none());
        let unsplit = Unsplit::of(&split);
        assert_eq!(unsplit.statements.replace(' ', ""), straight(&program));
        let last = format!("t{} + t3", LONG - 1);
        let parts = LONG.div_ceil(PART);
        let want: HashMap<String, (String, usize)> = [
            ("[0]", "c0", 0),
            ("[1]", last.as_str(), parts - 1),
            ("[3]", "q [0]", 0),
        ]
        .into_iter()
        .map(|(place, value, k)| (place.to_owned(), (value.to_owned(), k)))
        .collect();
        // The zero output is the result's initial value, never written.
        assert_eq!(unsplit.written, want);
        let writers: Vec<usize> = (0..parts)
            .filter(|&k| split.parts[k].writes_outputs)
            .collect();
        assert_eq!(writers, [0, parts - 1]);
        // `c0` is written in its own part, so no later part keeps it.
        let c0_kept = unsplit.stored.values().any(|name| name == "c0");
        assert!(!c0_kept, "c0 is read by no later part");
    }

    /// Sines and cosines of `angles` in order (each sine before its
    /// cosine), printed as the body's statements.
    fn trigonometry(angles: Vec<Term>) -> Vec<String> {
        trigonometry_by(angles, Quads::Helper)
    }

    /// [`trigonometry`], four angles at once computed as `quads` says.
    fn trigonometry_by(angles: Vec<Term>, quads: Quads) -> Vec<String> {
        let mut locals = Vec::new();
        for (i, angle) in angles.into_iter().enumerate() {
            locals.push(Local {
                name: format!("s{i}"),
                value: Term::Sin(Box::new(angle.clone())),
            });
            locals.push(Local {
                name: format!("c{i}"),
                value: Term::Cos(Box::new(angle)),
            });
        }
        let program = Program {
            outputs: vec![Term::Local(locals.len() - 1)],
            locals,
        };
        let names: Vec<String> = program.locals.iter().map(|l| l.name.clone()).collect();
        let printer = Printer {
            locals: &names,
            slots: &[],
            lanes: None,
        };
        statements(&program, None)
            .iter()
            .map(|s| {
                s.print(&program, &printer, quads)
                    .expect("prints")
                    .to_tokens()
                    .to_string()
                    .replace(' ', "")
            })
            .collect()
    }

    #[test]
    fn sines_and_cosines_in_a_row_go_four_or_two_at_a_time_unless_one_reads_another() {
        let q = |i| Term::Input(Symbol::Position(i));
        assert_eq!(
            trigonometry(vec![q(0), q(1), q(2)]),
            [
                "let((s0,c0),(s1,c1))=sin_cos_pair(q[0],q[1]);",
                "let(s2,c2)=sin_cos(q[2]);"
            ]
        );
        assert_eq!(
            trigonometry((0..7).map(q).collect()),
            [
                "let[(s0,c0),(s1,c1),(s2,c2),(s3,c3)]=sin_cos_quad(q[0],q[1],q[2],q[3]);",
                "let((s4,c4),(s5,c5))=sin_cos_pair(q[4],q[5]);",
                "let(s6,c6)=sin_cos(q[6]);"
            ]
        );
        // The second angle reads the first's sine: the coordinates' come
        // first, together, and it after them.
        assert_eq!(
            trigonometry(vec![q(0), Term::Local(0), q(1)]),
            [
                "let((s0,c0),(s2,c2))=sin_cos_pair(q[0],q[1]);",
                "let(s1,c1)=sin_cos(s0);"
            ]
        );
        // Angles of locals in a row still go together, one reading the
        // other's run waits.
        assert_eq!(
            trigonometry(vec![
                Term::Mul(Box::new(q(0)), Box::new(q(0))),
                Term::Local(0),
                Term::Local(1),
                Term::Local(4)
            ]),
            [
                "let(s0,c0)=sin_cos(q[0]*q[0]);",
                "let((s1,c1),(s2,c2))=sin_cos_pair(s0,c0);",
                "let(s3,c3)=sin_cos(s2);"
            ]
        );
    }

    #[test]
    fn a_function_with_an_avx_copy_computes_four_angles_by_its_lanes() {
        let q = |i| Term::Input(Symbol::Position(i));
        assert_eq!(
            trigonometry_by((0..6).map(q).collect(), Quads::Lanes),
            [
                "let[(s0,c0),(s1,c1),(s2,c2),(s3,c3)]=lanes.sin_cos_quad(q[0],q[1],q[2],q[3]);",
                "let((s4,c4),(s5,c5))=sin_cos_pair(q[4],q[5]);"
            ]
        );
    }

    /// The text of a body's statements, or of a part's.
    fn lines_text(lines: &[crate::print::lines::Line]) -> String {
        lines
            .iter()
            .map(|line| line.to_tokens().to_string().replace(' ', "") + "\n")
            .collect()
    }

    /// Two legs of `steps` statements each, paired.
    fn paired_legs(steps: usize) -> LanePairs {
        let program = crate::render::lanes::tests::legs(steps);
        let rename = crate::render::lanes::tests::rename();
        crate::render::lanes::pair_branches(&program, &rename).expect("the legs pair")
    }

    #[test]
    fn a_long_body_writes_its_outputs_after_the_lane_statements() {
        let lanes = paired_legs(400);
        let places = [quote!([0]), quote!([1])];
        let printed = &lanes.program;
        assert!(printed.locals.len() >= crate::render::body::WRITTEN_EARLY_FROM);
        let body = body(printed, Some(&places), Quads::Helper, Some(&lanes)).expect("prints");
        assert!(body.outputs.is_none() && body.parts.is_empty());
        let text = lines_text(&body.statements);
        assert_eq!(text.matches("letvt").count(), 400, "{text}");
        // The last lane statement read back, then both legs' outputs.
        let last = text.rfind("pair_lanes(").expect("a read-back");
        let (first, second) = (
            text.find("out[0]=").expect("0"),
            text.find("out[1]=").expect("1"),
        );
        assert!(last < first && last < second, "{text}");
    }

    #[test]
    fn a_split_body_passes_lane_statements_on_as_their_two_lanes() {
        let lanes = paired_legs(800);
        let places = [quote!([0]), quote!([1])];
        let body =
            body(&lanes.program, Some(&places), Quads::Helper, Some(&lanes)).expect("prints");
        assert!(body.parts.len() > 1);
        // What each slot of `live` holds: the local stored there, and the
        // lane statement whose lanes bound it.
        let mut stored: HashMap<String, String> = HashMap::new();
        let mut lanes_of: HashMap<String, (String, usize)> = HashMap::new();
        let mut across = 0;
        for part in &body.parts {
            let text = lines_text(&part.statements);
            // Every earlier lane statement a part reads, it reads as the two
            // lanes of one statement, first lane first.
            for read in text.split("pair(live[").skip(1) {
                let (first, rest) = read.split_once("],live[").expect("two slots");
                let (second, _) = rest.split_once("])").expect("closed");
                let (a, b) = (&stored[first], &stored[second]);
                // The sines, paired single statements, or a lane statement.
                match lanes_of.get(a) {
                    None => assert_eq!((a.as_str(), b.as_str()), ("s0", "s1")),
                    Some((lane, n)) => {
                        assert_eq!((*n, &lanes_of[b]), (0, &(lane.clone(), 1)), "{read}");
                        across += 1;
                    }
                }
            }
            for line in text.lines() {
                if let Some(binding) = line.strip_prefix("let(") {
                    let (names, lane) = binding.split_once(")=pair_lanes(").expect("a read-back");
                    let lane = lane.trim_end_matches(");").to_owned();
                    for (n, name) in names.split(',').enumerate() {
                        lanes_of.insert(name.to_owned(), (lane.clone(), n));
                    }
                } else if let Some(store) = line.strip_prefix("live[") {
                    let (slot, name) = store.split_once("]=").expect("a store");
                    stored.insert(slot.to_owned(), name.trim_end_matches(';').to_owned());
                }
            }
        }
        // Each leg's chain crosses every part boundary once.
        assert_eq!(across, body.parts.len() - 1);
    }
}
