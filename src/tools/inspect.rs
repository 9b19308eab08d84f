//! `throng inspect MODEL`: a designer's summary of a model, or (with `--pose`) the posed
//! vertices and joint matrices in the same JSON shape as the reference files, so any other
//! engine's output can be diffed against ours.

use crate::anim::{apply_morph, AnimationPlayer, MorphStateSet, MorphedPrimitive, ScenePose};
use crate::anim::{skin_positions, SkinningPaletteSet};
use crate::asset::types::*;
use glam::{Mat4, Vec3};
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::PathBuf;

#[derive(Debug, Clone, clap::Args)]
pub struct InspectArgs {
    /// Model file (.gltf, .glb, .vrm)
    pub model: PathBuf,
    /// Machine-readable JSON output
    #[arg(long)]
    pub json: bool,
    /// Pose with this clip (index or name; `none` = the file's own node transforms)
    #[arg(long, value_name = "CLIP")]
    pub pose: Option<String>,
    /// Time in seconds for --pose (clamped to the clip's keys; 0 to 86400)
    #[arg(long, value_name = "T", default_value_t = 0.0, value_parser = parse_pose_time, allow_hyphen_values = true)]
    pub time: f32,
    /// Morph weights for a node (index or name): NODE=w0,w1,...
    #[arg(long, value_name = "NODE=W0,W1,..")]
    pub morph: Vec<String>,
    /// VRM expression value: NAME=V (0..1)
    #[arg(long, value_name = "NAME=V")]
    pub expression: Vec<String>,
    /// Run the hero's runtime headless and write, per frame, the spring joints' tails, the
    /// head and eye rotations and the expression weights
    #[arg(long, conflicts_with_all = ["pose", "morph", "expression"])]
    pub trace: bool,
    /// --trace: what the hero does
    #[arg(long, value_enum, requires = "trace", default_value = "idle")]
    pub motion: super::trace::TraceMotion,
    /// --trace: seconds to run (above 0, up to 600)
    #[arg(long, value_name = "S", requires = "trace", default_value = "2", value_parser = super::trace::parse_seconds)]
    pub seconds: f32,
    /// --trace: frames per second (1 to 240)
    #[arg(long, value_name = "F", requires = "trace", default_value = "60", value_parser = super::trace::parse_fps)]
    pub fps: u32,
}

pub fn run_inspect(args: &InspectArgs) -> Result<String, String> {
    let scene = crate::asset::load_file(&args.model).map_err(|e| e.to_string())?;
    if args.trace {
        let v = super::trace::trace(scene, &args.model, args.motion, args.seconds, args.fps)?;
        return if args.json {
            serde_json::to_string(&v).map_err(|e| e.to_string())
        } else {
            Ok(super::trace::trace_text(&v))
        };
    }
    let posing = args.pose.is_some() || !args.morph.is_empty() || !args.expression.is_empty();
    if posing {
        let clip = match args.pose.as_deref() {
            None | Some("none") => None,
            Some(k) => Some(
                scene
                    .find_clip(k)
                    .ok_or_else(|| format!("{}: no clip \"{k}\"", scene.source))?,
            ),
        };
        let morphs = parse_morphs(&scene, &args.morph)?;
        let exprs = parse_expressions(&scene, &args.expression)?;
        let report = pose_report(&scene, clip, args.time, &morphs, &exprs)
            .map_err(|e| format!("{}: {e}", scene.source))?;
        // JSON has no infinity or NaN (serde would write null): refuse rather than print a
        // report that looks complete.
        let text = if args.json {
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        } else {
            pose_text(&report)
        };
        return Ok(text);
    }
    if args.json {
        serde_json::to_string_pretty(&summary_json(&scene)).map_err(|e| e.to_string())
    } else {
        Ok(summary_text(&scene))
    }
}

fn parse_morphs(scene: &SceneAsset, specs: &[String]) -> Result<Vec<(usize, Vec<f32>)>, String> {
    let mut out = Vec::new();
    for s in specs {
        let (node, ws) = s
            .split_once('=')
            .ok_or_else(|| format!("--morph {s}: expected NODE=w0,w1,..."))?;
        let n = scene
            .find_node(node)
            .ok_or_else(|| format!("--morph {s}: no node \"{node}\""))?;
        let mut weights = Vec::new();
        for w in ws.split(',') {
            match w.trim().parse::<f32>() {
                Ok(v) if v.is_finite() => weights.push(v),
                _ => {
                    return Err(format!(
                        "--morph {s}: weight `{}` is not allowed; allowed: finite numbers",
                        w.trim()
                    ))
                }
            }
        }
        let ws = weights;
        out.push((n, ws));
    }
    Ok(out)
}

fn parse_expressions(scene: &SceneAsset, specs: &[String]) -> Result<Vec<(String, f32)>, String> {
    let mut out = Vec::new();
    for s in specs {
        let (name, v) = s
            .split_once('=')
            .ok_or_else(|| format!("--expression {s}: expected NAME=V"))?;
        let v: f32 = match v.trim().parse::<f32>() {
            Ok(v) if (0.0..=1.0).contains(&v) => v,
            _ => {
                return Err(format!(
                    "--expression {s}: value `{}` is not allowed; allowed: 0 to 1",
                    v.trim()
                ))
            }
        };
        if scene
            .vrm
            .as_ref()
            .and_then(|x| x.expression(name))
            .is_none()
        {
            return Err(format!("--expression {s}: no VRM expression \"{name}\""));
        }
        out.push((name.to_string(), v));
    }
    Ok(out)
}

#[derive(Debug, Clone, Serialize)]
pub struct PosedMesh {
    pub node: usize,
    pub mesh: usize,
    pub primitive: usize,
    pub skinned: bool,
    pub skin: Option<usize>,
    pub vertex_count: usize,
    pub morph_weights: Vec<f32>,
    pub mesh_world_matrix: [f32; 16],
    pub positions_local: Vec<f32>,
    pub positions_world: Vec<f32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PosedJoint {
    pub node: usize,
    pub name: Option<String>,
    pub world_matrix: [f32; 16],
    pub joint_matrix: [f32; 16],
}

#[derive(Debug, Clone, Serialize)]
pub struct PosedSkin {
    pub skin: usize,
    pub joint_nodes: Vec<usize>,
    pub joints: Vec<PosedJoint>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PosedNode {
    pub node: usize,
    pub name: Option<String>,
    pub world_matrix: [f32; 16],
}

fn parse_pose_time(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(t) if t.is_finite() && (0.0..=86_400.0).contains(&t) => Ok(t),
        _ => Err(format!(
            "`{s}` is not a time; allowed: seconds from 0 to 86400"
        )),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PoseReport {
    pub model: String,
    pub clip_index: i64,
    pub time_applied: Option<f32>,
    pub meshes: Vec<PosedMesh>,
    pub skins: Vec<PosedSkin>,
    pub nodes: Vec<PosedNode>,
}

/// Poses the scene: clip at `time` (None = bind pose), then explicit morph weights, then VRM
/// expressions; returns every primitive instance's posed vertices (all of them). A value that
/// overflowed (a world matrix, a joint matrix, a vertex, a weight) is an error naming it:
/// every value of a report is finite.
pub fn pose_report(
    scene: &SceneAsset,
    clip: Option<usize>,
    time: f32,
    morphs: &[(usize, Vec<f32>)],
    expressions: &[(String, f32)],
) -> Result<PoseReport, String> {
    let report = posed(scene, clip, time, morphs, expressions).map_err(|e| e.to_string())?;
    check_finite(&report)?;
    Ok(report)
}

fn posed(
    scene: &SceneAsset,
    clip: Option<usize>,
    time: f32,
    morphs: &[(usize, Vec<f32>)],
    expressions: &[(String, f32)],
) -> Result<PoseReport, crate::anim::AnimError> {
    let mut pose = ScenePose::new(scene);
    let mut mstates = MorphStateSet::new(scene);
    let mut player = AnimationPlayer::new();
    player.set_clip(clip);
    player.seek(time)?;
    player.update(0.0, scene, &mut pose, Some(&mut mstates))?;
    for (n, ws) in morphs {
        if let Some(s) = mstates.get_mut(*n) {
            s.set_weights(ws);
        }
    }
    for (name, v) in expressions {
        mstates.apply_expression(scene, name, *v);
    }
    let mut palettes = SkinningPaletteSet::new(scene);
    palettes.update(scene, &pose)?;
    let world = pose
        .world_matrices()
        .ok_or(crate::anim::AnimError::PoseDirty)?;
    let mut meshes = Vec::new();
    let mut morphed = MorphedPrimitive::default();
    let mut skinned = Vec::new();
    for (ni, node) in scene.nodes.iter().enumerate() {
        let Some(mi) = node.mesh else { continue };
        let Some(mesh) = scene.meshes.get(mi) else {
            continue;
        };
        let weights: Vec<f32> = mstates
            .get(ni)
            .map(|s| s.weights().to_vec())
            .unwrap_or_default();
        let mw = world[ni];
        for (pi, prim) in mesh.primitives.iter().enumerate() {
            apply_morph(prim, &weights, &mut morphed);
            let pal = palettes.find(ni, pi);
            let local: &[Vec3] = match pal {
                Some(p) => {
                    skin_positions(prim, &p.matrices, &morphed.positions, &mut skinned);
                    &skinned
                }
                None => &morphed.positions,
            };
            let mut pl = Vec::with_capacity(local.len() * 3);
            let mut pw = Vec::with_capacity(local.len() * 3);
            for p in local {
                pl.extend_from_slice(&p.to_array());
                pw.extend_from_slice(&mw.transform_point3(*p).to_array());
            }
            meshes.push(PosedMesh {
                node: ni,
                mesh: mi,
                primitive: pi,
                skinned: pal.is_some(),
                skin: if pal.is_some() { node.skin } else { None },
                vertex_count: prim.vertex_count(),
                morph_weights: weights.clone(),
                mesh_world_matrix: mw.to_cols_array(),
                positions_local: pl,
                positions_world: pw,
            });
        }
    }
    let skins = scene
        .skins
        .iter()
        .enumerate()
        .map(|(si, s)| PosedSkin {
            skin: si,
            joint_nodes: s.joints.clone(),
            joints: s
                .joints
                .iter()
                .zip(&s.inverse_bind)
                .map(|(&j, ibm)| {
                    let w = world.get(j).copied().unwrap_or(Mat4::IDENTITY);
                    PosedJoint {
                        node: j,
                        name: scene.nodes.get(j).and_then(|n| n.name.clone()),
                        world_matrix: w.to_cols_array(),
                        joint_matrix: (w * *ibm).to_cols_array(),
                    }
                })
                .collect(),
        })
        .collect();
    let nodes = scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| PosedNode {
            node: i,
            name: n.name.clone(),
            world_matrix: world[i].to_cols_array(),
        })
        .collect();
    Ok(PoseReport {
        model: scene.source.clone(),
        clip_index: clip.map(|c| c as i64).unwrap_or(-1),
        time_applied: clip.map(|c| time.clamp(0.0, scene.animations[c].duration)),
        meshes,
        skins,
        nodes,
    })
}

/// The first value of `r` that is not finite, named by where it is, as an error; nodes first,
/// then joints, then meshes, so an overflowing transform is named rather than the vertices it
/// carries.
fn check_finite(r: &PoseReport) -> Result<(), String> {
    let overflow = "the transforms overflow 32-bit floats";
    let matrix = |m: &[f32; 16]| {
        m.iter()
            .position(|v| !v.is_finite())
            .map(|i| format!("{} in column {} row {}", m[i], i / 4, i % 4))
    };
    let quoted = |n: &Option<String>| n.as_ref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
    for n in &r.nodes {
        if let Some(bad) = matrix(&n.world_matrix) {
            return Err(format!(
                "node {}{}: world matrix is not finite ({bad}); {overflow}",
                n.node,
                quoted(&n.name)
            ));
        }
    }
    for s in &r.skins {
        for j in &s.joints {
            if let Some(bad) = matrix(&j.joint_matrix) {
                return Err(format!(
                    "skin {} joint node {}{}: joint matrix is not finite ({bad}); {overflow}",
                    s.skin,
                    j.node,
                    quoted(&j.name)
                ));
            }
        }
    }
    for m in &r.meshes {
        let at = format!("node {} mesh {} primitive {}", m.node, m.mesh, m.primitive);
        if let Some(k) = m.morph_weights.iter().position(|w| !w.is_finite()) {
            return Err(format!(
                "{at}: morph weight {k} is not finite ({})",
                m.morph_weights[k]
            ));
        }
        for (space, values) in [("local", &m.positions_local), ("world", &m.positions_world)] {
            if let Some(i) = values.iter().position(|v| !v.is_finite()) {
                return Err(format!(
                    "{at}: vertex {} {space} position is not finite ({}); {overflow}",
                    i / 3,
                    values[i]
                ));
            }
        }
    }
    Ok(())
}

fn pose_text(r: &PoseReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} clip {} time {:?}",
        r.model, r.clip_index, r.time_applied
    );
    for m in &r.meshes {
        let mut b = Aabb::EMPTY;
        for p in m.positions_world.chunks_exact(3) {
            b.extend(Vec3::new(p[0], p[1], p[2]));
        }
        let _ = writeln!(
            s,
            "  node {} mesh {} prim {}: {} verts, world bounds {:?}..{:?}, weights {:?}",
            m.node, m.mesh, m.primitive, m.vertex_count, b.min, b.max, m.morph_weights
        );
    }
    s
}

fn name(n: &Option<String>) -> &str {
    n.as_deref().unwrap_or("-")
}

fn summary_text(sc: &SceneAsset) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", sc.source);
    let _ = writeln!(s, "nodes: {}", sc.nodes.len());
    for (i, n) in sc.nodes.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {i:4} {:<24} parent {:>5} {}{}",
            name(&n.name),
            n.parent
                .map(|p| p.to_string())
                .unwrap_or_else(|| "-".into()),
            n.mesh.map(|m| format!("mesh {m} ")).unwrap_or_default(),
            n.skin.map(|m| format!("skin {m}")).unwrap_or_default(),
        );
    }
    let _ = writeln!(s, "meshes: {}", sc.meshes.len());
    for (i, m) in sc.meshes.iter().enumerate() {
        let v: usize = m.primitives.iter().map(|p| p.vertex_count()).sum();
        let t: usize = m.primitives.iter().map(|p| p.triangle_count()).sum();
        let _ = writeln!(
            s,
            "  {i:4} {:<24} {} primitives, {v} vertices, {t} triangles, palette joints {}",
            name(&m.name),
            m.primitives.len(),
            m.palette_joints.len()
        );
        if !m.morph_target_names.is_empty() {
            let _ = writeln!(
                s,
                "       morph targets: {}",
                m.morph_target_names.join(", ")
            );
        }
    }
    let _ = writeln!(s, "skins: {}", sc.skins.len());
    for (i, k) in sc.skins.iter().enumerate() {
        let _ = writeln!(s, "  {i:4} {:<24} {} joints", name(&k.name), k.joints.len());
    }
    let _ = writeln!(s, "clips: {}", sc.animations.len());
    for (i, c) in sc.animations.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {i:4} {:<24} {:.3} s, {} channels ({} nodes, {} morph)",
            c.name,
            c.duration,
            c.source_channel_count,
            c.node_channels.len(),
            c.morph_channels.len()
        );
    }
    let _ = writeln!(s, "materials: {}", sc.materials.len());
    for (i, m) in sc.materials.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {i:4} {:<24} base {:?} tex {:?} {:?}{}{}",
            name(&m.name),
            m.base_color.to_array(),
            m.base_color_texture,
            m.alpha_mode,
            if m.double_sided { " double-sided" } else { "" },
            if m.mtoon.is_some() { " MToon" } else { "" }
        );
        if let Some(t) = &m.mtoon {
            let _ = writeln!(
                s,
                "       shade {:?} shift {:.3} toony {:.3} rim {:?} outline {:?} {:.4} {:?}",
                t.shade_color.to_array(),
                t.shading_shift,
                t.shading_toony,
                t.rim_color.to_array(),
                t.outline_width_mode,
                t.outline_width,
                t.outline_color.to_array()
            );
        }
    }
    let failed = sc.textures.iter().filter(|t| t.fallback).count();
    match failed {
        0 => {
            let _ = writeln!(s, "textures: {}", sc.textures.len());
        }
        n => {
            let _ = writeln!(s, "textures: {} ({n} failed)", sc.textures.len());
        }
    }
    for (i, t) in sc.textures.iter().enumerate() {
        let state = match &t.error {
            Some(why) => format!("FAILED, white stand-in: {why}"),
            None => format!("{}x{}", t.width, t.height),
        };
        let _ = writeln!(s, "  {i:4} {:<24} {state}", name(&t.name));
    }
    if let Some(v) = &sc.vrm {
        let _ = writeln!(
            s,
            "VRM {}.x: {:?} by {:?}, {} humanoid bones",
            v.spec_major,
            v.title,
            v.author,
            v.humanoid.len()
        );
        super::inspect_vrm::vrm_text(&mut s, sc, v);
    }
    s
}

fn summary_json(sc: &SceneAsset) -> Value {
    json!({
        "model": sc.source,
        "nodes": sc.nodes.iter().enumerate().map(|(i, n)| json!({
            "node": i, "name": n.name, "parent": n.parent, "mesh": n.mesh, "skin": n.skin,
        })).collect::<Vec<_>>(),
        "meshes": sc.meshes.iter().enumerate().map(|(i, m)| json!({
            "mesh": i, "name": m.name,
            "primitives": m.primitives.iter().map(|p| json!({
                "vertex_count": p.vertex_count(), "triangle_count": p.triangle_count(),
                "skinned": p.is_skinned(), "material": p.material,
            })).collect::<Vec<_>>(),
            "morph_targets": m.morph_target_names,
            "palette_joints": m.palette_joints,
        })).collect::<Vec<_>>(),
        "skins": sc.skins.iter().enumerate().map(|(i, k)| json!({
            "skin": i, "name": k.name, "joints": k.joints, "skeleton": k.skeleton,
        })).collect::<Vec<_>>(),
        "clips": sc.animations.iter().enumerate().map(|(i, c)| json!({
            "index": i, "name": c.name, "duration": c.duration,
            "channels": c.source_channel_count,
            "node_channels": c.node_channels.len(), "morph_channels": c.morph_channels.len(),
        })).collect::<Vec<_>>(),
        "materials": sc.materials.iter().map(|m| json!({
            "name": m.name, "base_color": m.base_color.to_array(),
            "base_color_texture": m.base_color_texture,
            "alpha_mode": format!("{:?}", m.alpha_mode), "double_sided": m.double_sided,
            "emissive": m.emissive.to_array(), "unlit": m.unlit,
            "metallic_factor": m.metallic, "roughness_factor": m.roughness,
            "metallic_roughness_texture": m.metallic_roughness_texture,
            "mtoon": m.mtoon.as_ref().map(|t| json!({
                "shade_color_factor_linear": t.shade_color.to_array(),
                "shading_shift_factor": t.shading_shift,
                "shading_toony_factor": t.shading_toony,
                "gi_equalization_factor": t.gi_equalization,
                "parametric_rim_color_factor_linear": t.rim_color.to_array(),
                "rim_lighting_mix_factor": t.rim_lighting_mix,
                "parametric_rim_fresnel_power_factor": t.rim_fresnel_power,
                "parametric_rim_lift_factor": t.rim_lift,
                "outline_width_mode": format!("{:?}", t.outline_width_mode),
                "outline_width_factor": t.outline_width,
                "outline_color_factor_linear": t.outline_color.to_array(),
                "outline_lighting_mix_factor": t.outline_lighting_mix,
            })),
        })).collect::<Vec<_>>(),
        "textures": sc.textures.iter().map(|t| json!({
            "name": t.name, "width": t.width, "height": t.height,
            "loaded": !t.fallback, "error": t.error,
        })).collect::<Vec<_>>(),
        "vrm": sc.vrm.as_ref().map(|v| {
            let mut out = json!({
                "spec_major": v.spec_major, "title": v.title, "author": v.author,
                "license": v.license, "humanoid": v.humanoid,
            });
            // Expressions (with overrides and binds), spring bones, look-at, constraints and
            // first-person annotations.
            if let (Some(o), Value::Object(more)) =
                (out.as_object_mut(), super::inspect_vrm::vrm_json(sc, v))
            {
                o.extend(more);
            }
            out
        }),
    })
}
