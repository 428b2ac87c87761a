//! TOML → model: the structure of the format (tables, keys, value types,
//! expression syntax). Cross-references and values are checked afterwards
//! by [`validate`](crate::validate).

mod base;
mod body;
mod detach;
mod fields;
mod forces;
mod initial;
pub(crate) mod joint;
mod motion;
pub(crate) mod outputs;
mod visual;

pub(crate) use base::BaseTable;
pub(crate) use initial::InitialTable;

use crate::error::Problem;
use crate::expr::Expr;
use crate::model::{
    AppliedForce, Body, Independent, Joint, Parameter, ParameterValue, PrescribedMotion, Spec,
};
use crate::source::{Source, Span};
use crate::toml_tree::{read_document, Node, Value};
use fields::{boolean, number, string, wrong_type, Expressions, Fields};

/// Everything of a [`Spec`] read from the text, before validation.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    pub name: String,
    pub name_span: Span,
    pub description: Option<String>,
    pub gravity: [Expr; 3],
    pub single_precision: bool,
    pub fused_multiply_add: bool,
    pub folded_twin: bool,
    pub outputs: Option<Vec<String>>,
    pub parameters: Vec<Parameter>,
    pub bodies: Vec<Body>,
    pub joints: Vec<Joint>,
    pub initial: InitialTable,
    pub forces: Vec<AppliedForce>,
    pub motion: Vec<PrescribedMotion>,
    pub base: Option<BaseTable>,
    pub moving_base: Vec<String>,
    pub independent: Vec<Independent>,
}

impl Document {
    /// The names of the position and of the velocity coordinates, in
    /// coordinate order: what `[initial]` and `[forces]` refer to.
    pub fn coordinate_names(&self) -> (Vec<String>, Vec<String>) {
        let positions = self.joints.iter().flat_map(Joint::position_names).collect();
        let velocities = self.joints.iter().flat_map(Joint::velocity_names).collect();
        (positions, velocities)
    }

    /// The spec, once validation has passed and has worked out the initial
    /// positions and velocities, in coordinate order.
    pub fn into_spec(self, source: Source, initial: (Vec<f64>, Vec<f64>)) -> Spec {
        let (initial_positions, initial_velocities) = initial;
        Spec {
            initial_positions,
            initial_velocities,
            forces: self.forces,
            motion: self.motion,
            moving_base: self.moving_base,
            independent: self.independent,
            name: self.name,
            description: self.description,
            source,
            gravity: self.gravity,
            single_precision: self.single_precision,
            fused_multiply_add: self.fused_multiply_add,
            folded_twin: self.folded_twin,
            outputs: self.outputs,
            parameters: self.parameters,
            bodies: self.bodies,
            joints: self.joints,
            released: Vec::new(),
        }
    }
}

/// Reads the document structure of `text`.
pub(crate) fn read(text: &str) -> Result<Document, Problem> {
    let root = read_document(text)?;
    let root = Fields::new(
        &root,
        Span::default(),
        "the file",
        &[
            "mechanism",
            "parameters",
            "body",
            "joint",
            "initial",
            "forces",
            "motion",
            "base",
        ],
    )?;
    let exprs = Expressions { text };
    let Some(mechanism) = root.optional("mechanism") else {
        return Err(Problem::new(
            Span::default(),
            "missing table [mechanism]",
            "the file has no [mechanism] table",
            "start the file with [mechanism], `name = \"...\"` and `gravity = [...]`",
        ));
    };
    let mechanism = Fields::of(
        mechanism,
        "[mechanism]",
        &[
            "name",
            "description",
            "gravity",
            "single_precision",
            "fused_multiply_add",
            "folded_twin",
            "outputs",
            "independent",
        ],
    )?;
    let name_node = mechanism.required("name")?;
    let name = string(name_node, "`name`")?.to_owned();
    let description = mechanism
        .optional("description")
        .map(|d| string(d, "`description`"))
        .transpose()?;
    let gravity = exprs.exprs(mechanism.required("gravity")?, "`gravity`")?;
    let single_precision = mechanism
        .optional("single_precision")
        .map(|node| boolean(node, "`single_precision`"))
        .transpose()?
        .unwrap_or(false);
    let fused_multiply_add = mechanism
        .optional("fused_multiply_add")
        .map(|node| boolean(node, "`fused_multiply_add`"))
        .transpose()?
        .unwrap_or(false);
    let folded_twin = mechanism
        .optional("folded_twin")
        .map(|node| boolean(node, "`folded_twin`"))
        .transpose()?
        .unwrap_or(false);
    let outputs = mechanism
        .optional("outputs")
        .map(outputs::read)
        .transpose()?;
    let independent = match mechanism.optional("independent") {
        Some(node) => independent(node)?,
        None => Vec::new(),
    };
    let parameters = match root.optional("parameters") {
        Some(node) => parameters(node, exprs)?,
        None => Vec::new(),
    };
    let bodies = tables(root.optional("body"), "body")?
        .into_iter()
        .map(|node| body::read(node, exprs))
        .collect::<Result<Vec<_>, _>>()?;
    if bodies.is_empty() {
        return Err(Problem::new(
            mechanism.span(),
            "the mechanism has no bodies",
            "no [[body]] table in this file",
            "describe each moving body in a [[body]] table",
        ));
    }
    let joints = tables(root.optional("joint"), "joint")?
        .into_iter()
        .map(|node| joint::read(node, exprs))
        .collect::<Result<Vec<_>, _>>()?;
    let initial = match root.optional("initial") {
        Some(node) => initial::read(node, exprs)?,
        None => InitialTable::default(),
    };
    let forces = match root.optional("forces") {
        Some(node) => forces::read(node, exprs)?,
        None => Vec::new(),
    };
    let motion = match root.optional("motion") {
        Some(node) => motion::read(node, exprs)?,
        None => Vec::new(),
    };
    let base = root
        .optional("base")
        .map(|node| base::read(node, exprs))
        .transpose()?;
    Ok(Document {
        initial,
        forces,
        motion,
        base,
        moving_base: Vec::new(),
        independent,
        name,
        name_span: name_node.span,
        description: description.map(str::to_owned),
        gravity,
        single_precision,
        fused_multiply_add,
        folded_twin,
        outputs,
        parameters,
        bodies,
        joints,
    })
}

/// The elements of an array of tables (`[[body]]`), empty when absent.
fn tables<'a>(node: Option<&'a Node>, key: &str) -> Result<Vec<&'a Node>, Problem> {
    let Some(node) = node else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = &node.value else {
        return Err(Problem::new(
            node.span,
            format!(
                "`{key}` must be an array of tables, found {}",
                node.value.description()
            ),
            "expected [[...]] tables",
            format!("write each {key} as its own [[{key}]] table"),
        ));
    };
    Ok(items.iter().collect())
}

/// `[parameters]`: each key a name, each value a number or a definition.
fn parameters(node: &Node, exprs: Expressions) -> Result<Vec<Parameter>, Problem> {
    let Value::Table(table) = &node.value else {
        return Err(wrong_type(node, "[parameters]", "a table"));
    };
    let mut parameters = Vec::with_capacity(table.entries.len());
    for entry in &table.entries {
        let what = format!("parameter `{}`", entry.key);
        let value = match &entry.value.value {
            Value::String(_) => ParameterValue::Derived(exprs.expr(&entry.value, &what)?),
            Value::Integer(_) | Value::Float(_) => {
                let x = number(&entry.value, &what)?;
                if !x.is_finite() {
                    return Err(Problem::new(
                        entry.value.span,
                        format!("{what} must be a finite number, found {x}"),
                        "not finite",
                        "give a finite default value",
                    ));
                }
                ParameterValue::Number(x)
            }
            _ => {
                return Err(wrong_type(
                    &entry.value,
                    &what,
                    "a number or an expression string",
                ))
            }
        };
        parameters.push(Parameter {
            name: entry.key.clone(),
            span: entry.key_span,
            value,
        });
    }
    Ok(parameters)
}

/// `independent = ["q1", ...]`: names of velocity coordinates (checked
/// against the coordinates once the cut joints are known).
fn independent(node: &Node) -> Result<Vec<Independent>, Problem> {
    let Value::Array(items) = &node.value else {
        return Err(wrong_type(
            node,
            "`independent`",
            "an array of coordinate names",
        ));
    };
    items
        .iter()
        .map(|item| {
            Ok(Independent {
                name: string(item, "each independent coordinate")?.to_owned(),
                span: item.span,
            })
        })
        .collect()
}
