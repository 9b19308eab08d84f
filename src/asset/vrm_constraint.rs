//! VRMC_node_constraint (VRM 1.0): roll, aim and rotation constraints on nodes, as plain data
//! in the order they must be evaluated (a constraint after every constraint it depends on).
//! The runtime is `hero::constraints`.
//!
//! Refused with the node named: a source that is not a node or is the node itself, an unknown
//! axis, a non-finite weight, and constraints that depend on each other in a circle (the spec
//! forbids both). An extension of another spec version is left out, as a reader that does not
//! know it would.

use glam::Vec3;
use serde_json::Value;

use super::error::ImportError;
use super::types::NodeAsset;

pub const EXTENSION: &str = "VRMC_node_constraint";

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConstraintKind {
    /// Transfers the source's rotation about `axis` (unit X, Y or Z of the destination's rest).
    Roll { axis: Vec3 },
    /// Turns the destination's `axis` (unit, ±X/Y/Z of its rest) towards the source.
    Aim { axis: Vec3 },
    /// Copies the source's local rotation from its rest (Local-Local).
    Rotation,
}

impl ConstraintKind {
    pub fn name(&self) -> &'static str {
        match self {
            ConstraintKind::Roll { .. } => "roll",
            ConstraintKind::Aim { .. } => "aim",
            ConstraintKind::Rotation => "rotation",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeConstraint {
    /// The destination: the node whose local rotation the constraint writes.
    pub node: usize,
    pub source: usize,
    pub kind: ConstraintKind,
    /// 0..1: slerp from the destination's rest rotation to the constrained one.
    pub weight: f32,
}

fn axis_named(name: &str) -> Option<Vec3> {
    Some(match name {
        "X" | "PositiveX" => Vec3::X,
        "Y" | "PositiveY" => Vec3::Y,
        "Z" | "PositiveZ" => Vec3::Z,
        "NegativeX" => Vec3::NEG_X,
        "NegativeY" => Vec3::NEG_Y,
        "NegativeZ" => Vec3::NEG_Z,
        _ => return None,
    })
}

/// One node's constraint (None: it has none, or of another spec version).
fn read_one(
    file: &str,
    node: usize,
    ext: &Value,
    node_count: usize,
) -> Result<Option<NodeConstraint>, ImportError> {
    if ext.get("specVersion").and_then(Value::as_str) != Some("1.0") {
        return Ok(None);
    }
    let bad = |m: String| ImportError::new(file, format!("node {node} {EXTENSION}: {m}"));
    let c = ext.get("constraint").unwrap_or(&Value::Null);
    let (body, kind_name, axis_key, is_roll) = if let Some(b) = c.get("roll") {
        (b, "roll", Some("rollAxis"), true)
    } else if let Some(b) = c.get("aim") {
        (b, "aim", Some("aimAxis"), false)
    } else if let Some(b) = c.get("rotation") {
        (b, "rotation", None, false)
    } else {
        return Err(bad(
            "\"constraint\" must hold \"roll\", \"aim\" or \"rotation\"".into(),
        ));
    };
    let source = match body.get("source").and_then(Value::as_u64) {
        Some(s) if (s as usize) < node_count && s as usize != node => s as usize,
        Some(s) if s as usize == node => {
            return Err(bad(format!("{kind_name} source is the node itself")))
        }
        _ => {
            return Err(bad(format!(
                "{kind_name} \"source\" must be a node index (0..{node_count})"
            )))
        }
    };
    let weight = match body.get("weight") {
        None => 1.0,
        Some(w) => match w.as_f64() {
            Some(w) if w.is_finite() => (w as f32).clamp(0.0, 1.0),
            _ => {
                return Err(bad(format!(
                    "{kind_name} \"weight\" must be a finite number"
                )))
            }
        },
    };
    let kind = match axis_key {
        None => ConstraintKind::Rotation,
        Some(key) => {
            let name = body.get(key).and_then(Value::as_str).unwrap_or("");
            let axis = axis_named(name)
                .filter(|a| !is_roll || a.min_element() >= 0.0)
                .ok_or_else(|| bad(format!("{kind_name} \"{key}\" \"{name}\" is not an axis")))?;
            if is_roll {
                ConstraintKind::Roll { axis }
            } else {
                ConstraintKind::Aim { axis }
            }
        }
    };
    Ok(Some(NodeConstraint {
        node,
        source,
        kind,
        weight,
    }))
}

/// Every node's constraint, in evaluation order.
pub fn read(
    file: &str,
    doc: &gltf::Document,
    nodes: &[NodeAsset],
) -> Result<Vec<NodeConstraint>, ImportError> {
    let mut found = Vec::new();
    for n in doc.nodes() {
        if let Some(ext) = n.extension_value(EXTENSION) {
            if let Some(c) = read_one(file, n.index(), ext, nodes.len())? {
                found.push(c);
            }
        }
    }
    order(file, found, nodes)
}

/// The nodes whose rotation the constraint on `c` reads: its source and the source's
/// ancestors (its world position, for aim), and the destination's ancestors (its parent's
/// world rotation, for aim).
fn reads(c: &NodeConstraint, nodes: &[NodeAsset]) -> Vec<usize> {
    let mut out = vec![c.source];
    for start in [c.source, c.node] {
        let mut cur = nodes.get(start).and_then(|n| n.parent);
        // Bounded: a hierarchy with a loop is refused elsewhere, but never loop here.
        let mut steps = 0;
        while let (Some(p), true) = (cur, steps <= nodes.len()) {
            out.push(p);
            cur = nodes.get(p).and_then(|n| n.parent);
            steps += 1;
        }
    }
    out
}

/// Sorts constraints so each comes after those whose destinations it reads (the spec's
/// dependency resolution); a circle is an error naming a node on it.
fn order(
    file: &str,
    found: Vec<NodeConstraint>,
    nodes: &[NodeAsset],
) -> Result<Vec<NodeConstraint>, ImportError> {
    let mut by_node = vec![None; nodes.len()];
    for (i, c) in found.iter().enumerate() {
        by_node[c.node] = Some(i);
    }
    let deps: Vec<Vec<usize>> = found
        .iter()
        .map(|c| {
            reads(c, nodes)
                .into_iter()
                .filter_map(|n| by_node.get(n).copied().flatten())
                // An aim whose source hangs under its own destination reads the destination's
                // current rotation: not a circle between constraints.
                .filter(|&d| !std::ptr::eq(&found[d], c))
                .collect()
        })
        .collect();
    // 0 unvisited, 1 on the current path, 2 done; iterative depth-first post-order.
    let mut state = vec![0u8; found.len()];
    let mut out = Vec::with_capacity(found.len());
    for start in 0..found.len() {
        let mut stack = vec![(start, 0usize)];
        while let Some(&(i, next)) = stack.last() {
            if next == 0 {
                if state[i] == 2 {
                    stack.pop();
                    continue;
                }
                state[i] = 1;
            }
            let Some(&d) = deps[i].get(next) else {
                state[i] = 2;
                out.push(found[i]);
                stack.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 += 1;
            }
            match state[d] {
                1 => {
                    return Err(ImportError::new(
                        file,
                        format!(
                            "node {} {EXTENSION}: its constraints depend on each other in a \
                             circle",
                            found[d].node
                        ),
                    ))
                }
                0 => stack.push((d, 0)),
                _ => {}
            }
        }
    }
    Ok(out)
}
