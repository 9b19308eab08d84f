//! `throng inspect MODEL --trace`: the hero's runtime run headless on a model (clip,
//! expressions with blinking off, look-at at a fixed point, node constraints, spring bones),
//! written frame by frame: every spring joint's tail in world space, the head and eye bones'
//! rotations, and the expressions' applied weights. VRM authors debug their spring setups with
//! it; we compare it with other engines' traces.
//!
//! The hero stands on an empty floor at the origin facing her own front; walk and run go
//! straight ahead at the hero's default speeds (the controller's 60 Hz steps, as the game),
//! wave waves in place. Clips are the ones authored in code (`hero::humanoid_clips`), so a
//! trace depends on the model file alone. The look-at target is a fixed world point 2 m ahead
//! of the spawn at 1.5 m.

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::{json, Value};
use std::path::Path;

use crate::asset::SceneAsset;
use crate::hero::controller::MoveIntent;
use crate::hero::look_at::LookTarget;
use crate::hero::spring_bones::SPRING_STEP;
use crate::hero::Hero;

/// The hero's motion while traced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceMotion {
    Idle,
    Walk,
    Run,
    Wave,
}

/// Longest trace (seconds) and frame rates allowed; frames in all (seconds × fps) are capped
/// too, so a trace's JSON stays a file a person can open.
pub const MAX_SECONDS: f32 = 600.0;
pub const MAX_FPS: u32 = 240;
pub const MAX_FRAMES: u64 = 36_000;

pub fn parse_seconds(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(t) if t.is_finite() && t > 0.0 && t <= MAX_SECONDS => Ok(t),
        _ => Err(format!(
            "`{s}` is not a duration; allowed: seconds above 0 up to {MAX_SECONDS}"
        )),
    }
}

pub fn parse_fps(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(f) if (1..=MAX_FPS).contains(&f) => Ok(f),
        _ => Err(format!(
            "`{s}` is not a frame rate; allowed: whole numbers from 1 to {MAX_FPS}"
        )),
    }
}

/// An empty floor around the origin, the hero on it at `model`: what `Hero::new` needs of a
/// level (bounds for the controller, the hero's settings, authored motion).
fn floor_level(model: &Path) -> Result<crate::level::Level, String> {
    // The level names the model by its full path, so it is found wherever the command runs.
    let full = std::fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
    let path = format!("{:?}", full.to_string_lossy());
    let text = format!(
        r#"Level(
    name: "Trace floor",
    bounds: (min: (-1000.0, -1000.0), max: (1000.0, 1000.0)),
    spawn_zones: [(name: "edge", center: (900.0, 900.0), half_extents: (3.0, 3.0))],
    crowd: (
        count: 0,
        models: [(name: "hero", path: {path})],
        variant_groups: [(name: "all", models: ["hero"], tints: [(1.0, 1.0, 1.0)])],
        walk_speed: (min: 1.0, max: 1.4),
        seed: 1,
    ),
    hero: (model: {path}, spawn: (0.0, 0.0), heading_deg: 0.0, motion: (idle: Authored, walk: Authored, run: Authored, wave: Authored)),
)"#
    );
    let root = full.parent().unwrap_or(Path::new("."));
    crate::level::parse_level(&text, "trace floor", root).map_err(|e| e.to_string())
}

/// World rotation of a humanoid bone as [x, y, z, w], or null when the model has no such bone.
fn bone_rotation(h: &Hero, model: &Mat4, bone: &str) -> Value {
    let Some(n) = h
        .scene
        .vrm
        .as_ref()
        .and_then(|v| v.humanoid.get(bone).copied())
    else {
        return Value::Null;
    };
    let Some(w) = h.pose.world(n) else {
        return Value::Null;
    };
    let (_, r, _) = (*model * *w).to_scale_rotation_translation();
    let local = h.pose.local(n).map_or(Quat::IDENTITY, |t| t.rotation);
    json!({"world": r.to_array(), "local": local.to_array()})
}

fn frame_json(h: &Hero, t: f32, expression_names: &[String]) -> Value {
    let model = h.model_matrix();
    let tails: Vec<[f32; 3]> = h
        .springs
        .world_tails()
        .iter()
        .map(|(p, _)| p.to_array())
        .collect();
    let weights: serde_json::Map<String, Value> = expression_names
        .iter()
        .zip(&h.expressions.applied)
        .map(|(n, w)| (n.clone(), json!(w)))
        .collect();
    json!({
        "t": t,
        "position": [h.controller.position.x, h.controller.position.y],
        "tails": tails,
        "head": bone_rotation(h, &model, "head"),
        "left_eye": bone_rotation(h, &model, "leftEye"),
        "right_eye": bone_rotation(h, &model, "rightEye"),
        "expressions": weights,
    })
}

/// Runs the hero on `scene` and returns the trace as JSON.
pub fn trace(
    scene: SceneAsset,
    model_path: &Path,
    motion: TraceMotion,
    seconds: f32,
    fps: u32,
) -> Result<Value, String> {
    let frames = (seconds * fps as f32).round().max(1.0) as u64;
    if frames > MAX_FRAMES {
        return Err(format!(
            "--seconds {seconds} at --fps {fps} is {frames} frames, above the limit of {MAX_FRAMES}"
        ));
    }
    let level = floor_level(model_path)?;
    let mut h = Hero::new(scene, &level.hero, &level);
    h.expressions.auto_blink = false;
    let target = Vec3::new(0.0, 1.5, 2.0);
    h.look.target = LookTarget::ClickedPoint(target);
    let joints: Vec<Value> = h
        .springs
        .joint_nodes()
        .map(|n| json!({"node": n, "name": h.scene.nodes.get(n).and_then(|x| x.name.clone())}))
        .collect();
    let names: Vec<String> = h
        .expressions
        .expressions
        .iter()
        .map(|e| e.name.clone())
        .collect();
    let intent = MoveIntent {
        // The hero's own front at heading 0.
        direction: match motion {
            TraceMotion::Walk | TraceMotion::Run => Vec2::new(0.0, 1.0),
            _ => Vec2::ZERO,
        },
        run: motion == TraceMotion::Run,
    };
    if motion == TraceMotion::Wave {
        h.wave();
    }
    let dt = 1.0 / fps as f32;
    let mut acc = 0.0f32;
    let mut out = Vec::with_capacity(frames as usize + 1);
    for i in 0..=frames {
        let step_dt = if i == 0 { 0.0 } else { dt };
        acc += step_dt;
        // The controller moves in fixed 60 Hz steps, as in the game.
        while acc >= SPRING_STEP * 0.9999 {
            acc -= SPRING_STEP;
            h.step(SPRING_STEP, &intent);
        }
        if motion == TraceMotion::Wave && !h.is_waving() {
            h.wave();
        }
        h.update(step_dt);
        out.push(frame_json(&h, i as f32 * dt, &names));
    }
    Ok(json!({
        "model": h.scene.source,
        "motion": format!("{motion:?}").to_lowercase(),
        "seconds": seconds,
        "fps": fps,
        "look_target": target.to_array(),
        "spring_joints": joints,
        "constraints": h.constraints.len(),
        "expressions": names,
        "warnings": h.warnings,
        "frames": out,
    }))
}

/// The trace as text: a line per frame (time, position, head rotation, first tail, the
/// expressions above 0).
pub fn trace_text(v: &Value) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} {} for {} s at {} fps, {} spring joints",
        v["model"].as_str().unwrap_or("?"),
        v["motion"].as_str().unwrap_or("?"),
        v["seconds"],
        v["fps"],
        v["spring_joints"].as_array().map_or(0, Vec::len)
    );
    for f in v["frames"].as_array().map_or(&[][..], Vec::as_slice) {
        let on: Vec<String> = f["expressions"]
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(_, w)| w.as_f64().unwrap_or(0.0) > 0.0)
                    .map(|(n, w)| format!("{n}={:.2}", w.as_f64().unwrap_or(0.0)))
                    .collect()
            })
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "t {:.3}  at {}  head {}  tail0 {}  {}",
            f["t"].as_f64().unwrap_or(0.0),
            f["position"],
            f["head"]["world"],
            f["tails"].get(0).unwrap_or(&Value::Null),
            on.join(" ")
        );
    }
    s
}
