//! `throng inspect MODEL`'s VRM part: spring chains (joints, stiffness range, colliders and
//! their groups), look-at (type and range maps), expressions with their overrides and binds,
//! node constraints and first-person annotations, as text and as JSON. What a VRM author
//! checks first when hair or a face does not move as in another engine.

use crate::asset::types::*;
use crate::asset::vrm_constraint::ConstraintKind;
use crate::asset::vrm_look_at::{LookAtType, RangeMap};
use crate::asset::vrm_spring::{SpringBoneAsset, SpringColliderShape, SpringTail};
use serde_json::{json, Value};
use std::fmt::Write;

/// "node 12 (J_Sec_Hair1)".
fn node_label(sc: &SceneAsset, n: usize) -> String {
    match sc.nodes.get(n).and_then(|x| x.name.as_deref()) {
        Some(name) => format!("node {n} ({})", crate::shown::one_line(name)),
        None => format!("node {n}"),
    }
}

fn node_name(sc: &SceneAsset, n: usize) -> Option<&str> {
    sc.nodes.get(n).and_then(|x| x.name.as_deref())
}

fn shape_json(s: &SpringColliderShape) -> Value {
    match *s {
        SpringColliderShape::Sphere { offset, radius } => {
            json!({"type": "sphere", "offset": offset.to_array(), "radius": radius})
        }
        SpringColliderShape::InsideSphere { offset, radius } => {
            json!({"type": "inside sphere", "offset": offset.to_array(), "radius": radius})
        }
        SpringColliderShape::Capsule {
            offset,
            tail,
            radius,
        }
        | SpringColliderShape::InsideCapsule {
            offset,
            tail,
            radius,
        } => json!({"type": s.kind(), "offset": offset.to_array(), "tail": tail.to_array(),
                    "radius": radius}),
        SpringColliderShape::Plane { offset, normal } => {
            json!({"type": "plane", "offset": offset.to_array(), "normal": normal.to_array()})
        }
    }
}

fn shape_text(s: &SpringColliderShape) -> String {
    let v = |a: glam::Vec3| format!("({:.3}, {:.3}, {:.3})", a.x, a.y, a.z);
    match *s {
        SpringColliderShape::Sphere { offset, radius }
        | SpringColliderShape::InsideSphere { offset, radius } => {
            format!("{} at {} r {radius:.3}", s.kind(), v(offset))
        }
        SpringColliderShape::Capsule {
            offset,
            tail,
            radius,
        }
        | SpringColliderShape::InsideCapsule {
            offset,
            tail,
            radius,
        } => format!("{} {} to {} r {radius:.3}", s.kind(), v(offset), v(tail)),
        SpringColliderShape::Plane { offset, normal } => {
            format!("plane at {} normal {}", v(offset), v(normal))
        }
    }
}

/// (min, max) of a chain's joint stiffness; (0, 0) for no joints.
fn stiffness_range(j: &[crate::asset::vrm_spring::SpringJoint]) -> (f32, f32) {
    let mut it = j.iter().map(|j| j.settings.stiffness);
    let Some(first) = it.next() else {
        return (0.0, 0.0);
    };
    it.fold((first, first), |(lo, hi), s| (lo.min(s), hi.max(s)))
}

fn springs_json(sc: &SceneAsset, sp: &SpringBoneAsset) -> Value {
    json!({
        "colliders": sp.colliders.iter().enumerate().map(|(i, c)| json!({
            "collider": i, "node": c.node, "node_name": node_name(sc, c.node),
            "shape": shape_json(&c.shape),
            "fallback": c.fallback.as_ref().map(shape_json),
        })).collect::<Vec<_>>(),
        "collider_groups": sp.collider_groups.iter().enumerate().map(|(i, g)| json!({
            "group": i, "name": g.name, "colliders": g.colliders,
        })).collect::<Vec<_>>(),
        "springs": sp.springs.iter().map(|s| {
            let (lo, hi) = stiffness_range(&s.joints);
            json!({
                "name": s.name,
                "joints": s.joints.iter().map(|j| json!({
                    "node": j.node, "node_name": node_name(sc, j.node),
                    "tail": match j.tail {
                        SpringTail::Node(n) => json!({"node": n}),
                        SpringTail::Local(p) => json!({"local": p.to_array()}),
                    },
                    "stiffness": j.settings.stiffness, "gravity_power": j.settings.gravity_power,
                    "gravity_dir": j.settings.gravity_dir.to_array(), "drag": j.settings.drag,
                    "hit_radius": j.settings.hit_radius,
                })).collect::<Vec<_>>(),
                "stiffness_range": [lo, hi],
                "collider_groups": s.collider_groups,
                "center": s.center,
            })
        }).collect::<Vec<_>>(),
    })
}

fn springs_text(s: &mut String, sc: &SceneAsset, sp: &SpringBoneAsset) {
    let _ = writeln!(
        s,
        "  spring bones: {} chains, {} joints, {} colliders in {} groups",
        sp.springs.len(),
        sp.joint_count(),
        sp.colliders.len(),
        sp.collider_groups.len()
    );
    for c in &sp.springs {
        let (lo, hi) = stiffness_range(&c.joints);
        let groups: Vec<String> = c
            .collider_groups
            .iter()
            .map(|&g| {
                sp.collider_groups
                    .get(g)
                    .map_or(format!("{g}"), |x| format!("{g} {}", x.name))
            })
            .collect();
        let _ = writeln!(
            s,
            "    chain {:<28} {} joints, stiffness {lo:.2}..{hi:.2}, colliders [{}]{}",
            crate::shown::one_line(&c.name),
            c.joints.len(),
            groups.join(", "),
            c.center
                .map(|n| format!(", center {}", node_label(sc, n)))
                .unwrap_or_default()
        );
        for j in &c.joints {
            let _ = writeln!(
                s,
                "      {} drag {:.2} gravity {:.2} hit radius {:.3}",
                node_label(sc, j.node),
                j.settings.drag,
                j.settings.gravity_power,
                j.settings.hit_radius
            );
        }
    }
    for (i, g) in sp.collider_groups.iter().enumerate() {
        let _ = writeln!(
            s,
            "    collider group {i} {}:",
            crate::shown::one_line(&g.name)
        );
        for &c in &g.colliders {
            if let Some(col) = sp.colliders.get(c) {
                let fallback = col
                    .fallback
                    .map(|f| format!(" (fallback {})", shape_text(&f)))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "      collider {c} on {}: {}{fallback}",
                    node_label(sc, col.node),
                    shape_text(&col.shape)
                );
            }
        }
    }
}

fn range_json(m: &RangeMap) -> Value {
    json!({"input_max_value": m.input_max, "output_scale": m.output_scale, "curve": m.curve})
}

fn look_at_json(sc: &SceneAsset, v: &VrmAsset) -> Value {
    let Some(l) = &v.look_at else {
        return Value::Null;
    };
    json!({
        "type": match l.kind { LookAtType::Bone => "bone", LookAtType::Expression => "expression" },
        "head": l.head, "head_name": l.head.and_then(|h| node_name(sc, h)),
        "offset_from_head": l.offset_from_head.to_array(),
        "range_map_horizontal_inner": range_json(&l.horizontal_inner),
        "range_map_horizontal_outer": range_json(&l.horizontal_outer),
        "range_map_vertical_down": range_json(&l.vertical_down),
        "range_map_vertical_up": range_json(&l.vertical_up),
    })
}

fn look_at_text(s: &mut String, v: &VrmAsset) {
    let Some(l) = &v.look_at else {
        let _ = writeln!(s, "  look-at: none");
        return;
    };
    let kind = match l.kind {
        LookAtType::Bone => "bone",
        LookAtType::Expression => "expression",
    };
    let _ = writeln!(
        s,
        "  look-at: {kind}, offset from head {:?}",
        l.offset_from_head.to_array()
    );
    for (name, m) in [
        ("horizontal inner", &l.horizontal_inner),
        ("horizontal outer", &l.horizontal_outer),
        ("vertical down", &l.vertical_down),
        ("vertical up", &l.vertical_up),
    ] {
        let curve = m
            .curve
            .as_ref()
            .map(|c| format!(", curve of {} keys", c.len()))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "    {name:<17} input max {:.1}°, output scale {:.3}{curve}",
            m.input_max, m.output_scale
        );
    }
}

fn expression_json(e: &ExpressionAsset) -> Value {
    let o = |x: ExpressionOverride| format!("{x:?}").to_lowercase();
    json!({
        "name": e.name, "preset": e.is_preset, "is_binary": e.is_binary,
        "override_blink": o(e.override_blink), "override_look_at": o(e.override_look_at),
        "override_mouth": o(e.override_mouth),
        "morph_target_binds": e.binds.iter().map(|b| json!({
            "node": b.node, "mesh": b.mesh, "index": b.target, "weight": b.weight,
        })).collect::<Vec<_>>(),
        "material_color_binds": e.material_color_binds.iter().map(|b| json!({
            "material": b.material, "type": format!("{:?}", b.kind), "target": b.target.to_array(),
        })).collect::<Vec<_>>(),
        "texture_transform_binds": e.texture_transform_binds.iter().map(|b| json!({
            "material": b.material, "scale": b.scale.to_array(), "offset": b.offset.to_array(),
        })).collect::<Vec<_>>(),
    })
}

fn expressions_text(s: &mut String, v: &VrmAsset) {
    for e in &v.expressions {
        let o = |x: ExpressionOverride| format!("{x:?}").to_lowercase();
        let _ = writeln!(
            s,
            "  expression {:<14} {} morph binds, {} material colour binds, {} texture \
             transform binds{}; overrides blink {}, look-at {}, mouth {}",
            crate::shown::one_line(&e.name),
            e.binds.len(),
            e.material_color_binds.len(),
            e.texture_transform_binds.len(),
            if e.is_binary { ", binary" } else { "" },
            o(e.override_blink),
            o(e.override_look_at),
            o(e.override_mouth)
        );
    }
}

fn constraint_json(sc: &SceneAsset, c: &crate::asset::vrm_constraint::NodeConstraint) -> Value {
    let axis = match c.kind {
        ConstraintKind::Roll { axis } | ConstraintKind::Aim { axis } => Some(axis.to_array()),
        ConstraintKind::Rotation => None,
    };
    json!({
        "node": c.node, "node_name": node_name(sc, c.node), "type": c.kind.name(),
        "source": c.source, "source_name": node_name(sc, c.source), "axis": axis,
        "weight": c.weight,
    })
}

/// The VRM details as JSON fields, merged into the summary's "vrm" object.
pub fn vrm_json(sc: &SceneAsset, v: &VrmAsset) -> Value {
    json!({
        "spring_bones": springs_json(sc, &v.springs),
        "look_at": look_at_json(sc, v),
        "expressions": v.expressions.iter().map(expression_json).collect::<Vec<_>>(),
        "constraints": v.constraints.iter().map(|c| constraint_json(sc, c)).collect::<Vec<_>>(),
        "first_person": v.first_person.iter().map(|a| json!({
            "node": a.node, "mesh": a.mesh, "type": a.kind,
        })).collect::<Vec<_>>(),
    })
}

/// The VRM details as text lines (after the summary's VRM line).
pub fn vrm_text(s: &mut String, sc: &SceneAsset, v: &VrmAsset) {
    expressions_text(s, v);
    look_at_text(s, v);
    springs_text(s, sc, &v.springs);
    let _ = writeln!(s, "  node constraints: {}", v.constraints.len());
    for c in &v.constraints {
        let axis = match c.kind {
            ConstraintKind::Roll { axis } | ConstraintKind::Aim { axis } => {
                format!(" axis {:?}", axis.to_array())
            }
            ConstraintKind::Rotation => String::new(),
        };
        let _ = writeln!(
            s,
            "    {} on {} from {}{axis} weight {:.2}",
            c.kind.name(),
            node_label(sc, c.node),
            node_label(sc, c.source),
            c.weight
        );
    }
    let _ = writeln!(s, "  first-person annotations: {}", v.first_person.len());
    for a in &v.first_person {
        let target = match (a.node, a.mesh) {
            (Some(n), _) => node_label(sc, n),
            (None, Some(m)) => format!("mesh {m}"),
            (None, None) => "-".into(),
        };
        let _ = writeln!(s, "    {target}: {}", crate::shown::one_line(&a.kind));
    }
}
