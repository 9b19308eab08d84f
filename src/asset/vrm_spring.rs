//! Spring bones as plain data: VRM 1.0 `VRMC_springBone` and VRM 0.x
//! `extensions.VRM.secondaryAnimation`, both mapped onto one [`SpringBoneAsset`] that the
//! runtime (`hero::spring_bones`) simulates.
//!
//! The two formats differ in what a "bone" is. VRM 1.0 lists the joints of each spring in order
//! and the last joint is only the tail of the one before it. VRM 0.x lists chain roots: every
//! descendant of a root is a joint whose tail is its first child, and a leaf gets a tail 7 cm
//! past itself along its own offset (what UniVRM and three-vrm do). VRM 0.x collider offsets are
//! in Unity's left-handed space, so their z is flipped (three-vrm does the same).

use super::error::ImportError;
use super::limits::MAX_SPRING_JOINTS;
use super::types::NodeAsset;
use glam::Vec3;
use serde_json::{Map, Value};

/// Length of the tail VRM 0.x gives a leaf joint, in the leaf's local units.
pub const V0_LEAF_TAIL: f32 = 0.07;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpringColliderShape {
    /// `offset` in the collider node's local space.
    Sphere { offset: Vec3, radius: f32 },
    /// A segment from `offset` to `tail` (both local) swept by `radius`.
    Capsule {
        offset: Vec3,
        tail: Vec3,
        radius: f32,
    },
    /// VRMC_springBone_extended_collider: tails are kept inside the sphere.
    InsideSphere { offset: Vec3, radius: f32 },
    /// VRMC_springBone_extended_collider: tails are kept inside the capsule.
    InsideCapsule {
        offset: Vec3,
        tail: Vec3,
        radius: f32,
    },
    /// VRMC_springBone_extended_collider: tails are kept on the side `normal` (local, unit)
    /// points to of the plane through `offset`.
    Plane { offset: Vec3, normal: Vec3 },
}

impl SpringColliderShape {
    /// The shape's name as the files and `throng inspect` spell it.
    pub fn kind(&self) -> &'static str {
        match self {
            SpringColliderShape::Sphere { .. } => "sphere",
            SpringColliderShape::Capsule { .. } => "capsule",
            SpringColliderShape::InsideSphere { .. } => "inside sphere",
            SpringColliderShape::InsideCapsule { .. } => "inside capsule",
            SpringColliderShape::Plane { .. } => "plane",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringCollider {
    pub node: usize,
    pub shape: SpringColliderShape,
    /// The plain VRMC_springBone shape when `shape` came from VRMC_springBone_extended_collider
    /// (what readers without the extension use); None when there is no extended shape.
    pub fallback: Option<SpringColliderShape>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SpringColliderGroup {
    pub name: String,
    /// Indices into `SpringBoneAsset::colliders`.
    pub colliders: Vec<usize>,
}

/// Per-joint settings, in the files' units (metres of the model's own space, per second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringJointSettings {
    pub stiffness: f32,
    pub gravity_power: f32,
    /// Unit length (a zero vector in the file becomes straight down).
    pub gravity_dir: Vec3,
    /// 0 (no damping) ..= 1 (no inertia).
    pub drag: f32,
    pub hit_radius: f32,
}

/// Where a joint's simulated tail sits in its rest pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpringTail {
    /// At this child node (its rest translation).
    Node(usize),
    /// At this point in the joint's local space (VRM 0.x leaf: 7 cm past it).
    Local(Vec3),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringJoint {
    pub node: usize,
    pub tail: SpringTail,
    pub settings: SpringJointSettings,
}

/// One spring: joints parent-first, the collider groups it hits and its optional `center`
/// node (the space its inertia is kept in).
#[derive(Debug, Clone, PartialEq)]
pub struct SpringChain {
    pub name: String,
    pub joints: Vec<SpringJoint>,
    pub collider_groups: Vec<usize>,
    pub center: Option<usize>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpringBoneAsset {
    pub colliders: Vec<SpringCollider>,
    pub collider_groups: Vec<SpringColliderGroup>,
    pub springs: Vec<SpringChain>,
}

impl SpringBoneAsset {
    pub fn is_empty(&self) -> bool {
        self.springs.iter().all(|s| s.joints.is_empty())
    }

    pub fn joint_count(&self) -> usize {
        self.springs.iter().map(|s| s.joints.len()).sum()
    }
}

/// Reads the spring bones from the document's root extensions: `VRMC_springBone` (1.0) if
/// present, else `VRM.secondaryAnimation` (0.x); empty when neither is there.
pub fn read_springs(
    file: &str,
    ext: &Map<String, Value>,
    nodes: &[NodeAsset],
) -> Result<SpringBoneAsset, ImportError> {
    let springs = if let Some(v1) = ext.get("VRMC_springBone") {
        read_v1(file, v1, nodes)?
    } else if let Some(v0) = ext.get("VRM").and_then(|v| v.get("secondaryAnimation")) {
        read_v0(file, v0, nodes)?
    } else {
        return Ok(SpringBoneAsset::default());
    };
    // Before anything is built from them (`hero::spring_bones`).
    super::limits::check_springs(file, &springs)?;
    Ok(springs)
}

pub(super) fn err(file: &str, msg: String) -> ImportError {
    ImportError::new(file, msg)
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

/// A finite number, `default` when absent; anything else is an error naming the place.
fn num(file: &str, what: &str, v: &Value, key: &str, default: f32) -> Result<f32, ImportError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(x) => match x.as_f64() {
            Some(n) if n.is_finite() => Ok(n as f32),
            _ => Err(err(
                file,
                format!("{what}: \"{key}\" must be a finite number, found {x}"),
            )),
        },
    }
}

/// `[x, y, z]` (VRM 1.0) or `{x, y, z}` (VRM 0.x).
pub(super) fn vec3(
    file: &str,
    what: &str,
    v: &Value,
    key: &str,
    default: Vec3,
) -> Result<Vec3, ImportError> {
    let Some(x) = v.get(key) else {
        return Ok(default);
    };
    let bad = || {
        err(
            file,
            format!("{what}: \"{key}\" must be [x, y, z] or {{x, y, z}} of finite numbers"),
        )
    };
    let parts: Vec<Option<f64>> = match x {
        Value::Array(a) if a.len() == 3 => a.iter().map(Value::as_f64).collect(),
        Value::Object(_) => ["x", "y", "z"]
            .iter()
            .map(|k| Some(x.get(*k).and_then(Value::as_f64).unwrap_or(0.0)))
            .collect(),
        _ => return Err(bad()),
    };
    let mut out = [0.0f32; 3];
    for (o, p) in out.iter_mut().zip(parts) {
        match p {
            Some(n) if n.is_finite() => *o = n as f32,
            _ => return Err(bad()),
        }
    }
    Ok(Vec3::from(out))
}

fn index(file: &str, what: &str, v: &Value, len: usize, of: &str) -> Result<usize, ImportError> {
    match v.as_u64() {
        Some(i) if (i as usize) < len => Ok(i as usize),
        _ => Err(err(
            file,
            format!("{what}: {v} is not a valid {of} index (0..{len})"),
        )),
    }
}

fn settings(
    file: &str,
    what: &str,
    v: &Value,
    stiffness_key: &str,
    default_drag: f32,
) -> Result<SpringJointSettings, ImportError> {
    let dir = vec3(file, what, v, "gravityDir", Vec3::NEG_Y)?;
    Ok(SpringJointSettings {
        stiffness: num(file, what, v, stiffness_key, 1.0)?.max(0.0),
        gravity_power: num(file, what, v, "gravityPower", 0.0)?.max(0.0),
        gravity_dir: dir.try_normalize().unwrap_or(Vec3::NEG_Y),
        drag: num(file, what, v, "dragForce", default_drag)?.clamp(0.0, 1.0),
        hit_radius: num(file, what, v, "hitRadius", 0.0)?.max(0.0),
    })
}

pub(super) fn radius(file: &str, what: &str, v: &Value) -> Result<f32, ImportError> {
    let r = num(file, what, v, "radius", 0.0)?;
    if r < 0.0 {
        return Err(err(
            file,
            format!("{what}: radius {r} is negative (must be >= 0)"),
        ));
    }
    Ok(r)
}

fn read_v1(file: &str, v: &Value, nodes: &[NodeAsset]) -> Result<SpringBoneAsset, ImportError> {
    let mut out = SpringBoneAsset::default();
    for (ci, c) in array(v, "colliders").iter().enumerate() {
        let what = format!("VRMC_springBone collider {ci}");
        let node = index(
            file,
            &format!("{what} node"),
            c.get("node").unwrap_or(&Value::Null),
            nodes.len(),
            "node",
        )?;
        let main = v1_shape(file, &what, c.get("shape").unwrap_or(&Value::Null))?;
        // A reader that knows the extension uses its shape; the plain one is the fallback.
        let extended = super::vrm_spring_extended::read(file, &what, c)?;
        out.colliders.push(SpringCollider {
            node,
            shape: extended.unwrap_or(main),
            fallback: extended.map(|_| main),
        });
    }
    read_v1_groups_and_springs(file, v, nodes, out)
}

/// A VRMC_springBone collider's `shape`: a sphere or a capsule.
pub(super) fn v1_shape(
    file: &str,
    what: &str,
    shape: &Value,
) -> Result<SpringColliderShape, ImportError> {
    let what = what.to_string();
    Ok(if let Some(s) = shape.get("sphere") {
        SpringColliderShape::Sphere {
            offset: vec3(file, &what, s, "offset", Vec3::ZERO)?,
            radius: radius(file, &what, s)?,
        }
    } else if let Some(s) = shape.get("capsule") {
        SpringColliderShape::Capsule {
            offset: vec3(file, &what, s, "offset", Vec3::ZERO)?,
            tail: vec3(file, &what, s, "tail", Vec3::ZERO)?,
            radius: radius(file, &what, s)?,
        }
    } else {
        return Err(err(
            file,
            format!("{what}: \"shape\" must hold \"sphere\" or \"capsule\""),
        ));
    })
}

fn read_v1_groups_and_springs(
    file: &str,
    v: &Value,
    nodes: &[NodeAsset],
    mut out: SpringBoneAsset,
) -> Result<SpringBoneAsset, ImportError> {
    for (gi, g) in array(v, "colliderGroups").iter().enumerate() {
        let what = format!("VRMC_springBone colliderGroup {gi} colliders");
        let colliders = array(g, "colliders")
            .iter()
            .map(|c| index(file, &what, c, out.colliders.len(), "collider"))
            .collect::<Result<_, _>>()?;
        out.collider_groups.push(SpringColliderGroup {
            name: g
                .get("name")
                .and_then(Value::as_str)
                .map_or_else(|| format!("group {gi}"), str::to_string),
            colliders,
        });
    }
    for (si, s) in array(v, "springs").iter().enumerate() {
        let name = s
            .get("name")
            .and_then(Value::as_str)
            .map_or_else(|| format!("spring {si}"), str::to_string);
        let what = format!("VRMC_springBone spring {si} \"{name}\"");
        let groups = array(s, "colliderGroups")
            .iter()
            .map(|g| {
                index(
                    file,
                    &format!("{what} colliderGroups"),
                    g,
                    out.collider_groups.len(),
                    "colliderGroup",
                )
            })
            .collect::<Result<_, _>>()?;
        let center = match s.get("center") {
            None | Some(Value::Null) => None,
            Some(c) => Some(index(
                file,
                &format!("{what} center"),
                c,
                nodes.len(),
                "node",
            )?),
        };
        let raw = array(s, "joints");
        let mut joint_nodes = Vec::with_capacity(raw.len());
        for (ji, j) in raw.iter().enumerate() {
            let w = format!("{what} joint {ji}");
            let node = index(
                file,
                &format!("{w} node"),
                j.get("node").unwrap_or(&Value::Null),
                nodes.len(),
                "node",
            )?;
            joint_nodes.push((node, settings(file, &w, j, "stiffness", 0.5)?));
        }
        // Each joint's tail is the next joint; the last one is only a tail.
        let joints = joint_nodes
            .windows(2)
            .map(|w| SpringJoint {
                node: w[0].0,
                tail: SpringTail::Node(w[1].0),
                settings: w[0].1,
            })
            .collect();
        out.springs.push(SpringChain {
            name,
            joints,
            collider_groups: groups,
            center,
        });
    }
    Ok(out)
}

fn read_v0(file: &str, v: &Value, nodes: &[NodeAsset]) -> Result<SpringBoneAsset, ImportError> {
    let mut out = SpringBoneAsset::default();
    for (gi, g) in array(v, "colliderGroups").iter().enumerate() {
        let what = format!("VRM secondaryAnimation colliderGroup {gi}");
        let node = index(
            file,
            &format!("{what} node"),
            g.get("node").unwrap_or(&Value::Null),
            nodes.len(),
            "node",
        )?;
        let mut ids = Vec::new();
        for (ci, c) in array(g, "colliders").iter().enumerate() {
            let w = format!("{what} collider {ci}");
            let o = vec3(file, &w, c, "offset", Vec3::ZERO)?;
            ids.push(out.colliders.len());
            out.colliders.push(SpringCollider {
                node,
                shape: SpringColliderShape::Sphere {
                    offset: Vec3::new(o.x, o.y, -o.z),
                    radius: radius(file, &w, c)?,
                },
                fallback: None,
            });
        }
        out.collider_groups.push(SpringColliderGroup {
            name: nodes[node]
                .name
                .clone()
                .unwrap_or_else(|| format!("group {gi}")),
            colliders: ids,
        });
    }
    for (bi, b) in array(v, "boneGroups").iter().enumerate() {
        let name = b
            .get("comment")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map_or_else(|| format!("boneGroup {bi}"), str::to_string);
        let what = format!("VRM secondaryAnimation boneGroup {bi}");
        // The VRM 0.x spelling is "stiffiness"; accept the correct one too.
        let key = if b.get("stiffiness").is_some() {
            "stiffiness"
        } else {
            "stiffness"
        };
        let set = settings(file, &what, b, key, 0.4)?;
        let groups: Vec<usize> = array(b, "colliderGroups")
            .iter()
            .map(|g| {
                index(
                    file,
                    &format!("{what} colliderGroups"),
                    g,
                    out.collider_groups.len(),
                    "colliderGroup",
                )
            })
            .collect::<Result<_, _>>()?;
        // -1 (or absent) means no center.
        let center = match b.get("center").and_then(Value::as_i64) {
            Some(c) if c >= 0 => Some(index(
                file,
                &format!("{what} center"),
                &Value::from(c),
                nodes.len(),
                "node",
            )?),
            _ => None,
        };
        for root in array(b, "bones") {
            let root = index(file, &format!("{what} bones"), root, nodes.len(), "node")?;
            let mut joints = Vec::new();
            // Roots may share a subtree, so the joints are counted as they are made.
            let room = (MAX_SPRING_JOINTS as usize).saturating_sub(out.joint_count());
            expand_v0(file, root, nodes, set, &mut joints, room)?;
            out.springs.push(SpringChain {
                name: format!("{name}: {}", nodes[root].name.as_deref().unwrap_or("?")),
                joints,
                collider_groups: groups.clone(),
                center,
            });
        }
    }
    Ok(out)
}

/// Every node under `root` (itself included), parent first, as a joint whose tail is its first
/// child, or 7 cm past it along its own offset when it is a leaf.
fn expand_v0(
    file: &str,
    root: usize,
    nodes: &[NodeAsset],
    set: SpringJointSettings,
    out: &mut Vec<SpringJoint>,
    room: usize,
) -> Result<(), ImportError> {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if out.len() >= room {
            return Err(err(
                file,
                format!(
                    "its spring bones have more than {MAX_SPRING_JOINTS} joints (VRM \
                     secondaryAnimation: every node under a bone group's root is one), above \
                     the limit of {MAX_SPRING_JOINTS}"
                ),
            ));
        }
        if out.len() > nodes.len() {
            return Err(err(
                file,
                format!("VRM secondaryAnimation: the hierarchy under node {root} loops"),
            ));
        }
        let node = &nodes[n];
        let tail = match node.children.first() {
            Some(&c) if c < nodes.len() => SpringTail::Node(c),
            _ => SpringTail::Local(
                node.local.translation.try_normalize().unwrap_or(Vec3::Y) * V0_LEAF_TAIL,
            ),
        };
        out.push(SpringJoint {
            node: n,
            tail,
            settings: set,
        });
        // Reverse so the first child is expanded first (depth-first, file order).
        stack.extend(node.children.iter().rev().filter(|&&c| c < nodes.len()));
    }
    Ok(())
}
