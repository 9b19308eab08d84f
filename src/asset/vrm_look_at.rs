//! Look-at settings of a VRM: VRM 1.0 `VRMC_vrm.lookAt` and VRM 0.x `firstPerson`, read into
//! one `LookAtAsset` in VRM 1.0 terms (the eye point in the head's space with glTF axes, and
//! four range maps from gaze angle in degrees to eye-bone degrees or expression weight).
//!
//! VRM 0.x degree maps may carry a Unity `AnimationCurve` (`curve`: 4 floats per key: time,
//! value, in-tangent, out-tangent); UniVRM evaluates it as a cubic Hermite curve over
//! `angle / xRange`, and so do we (three-vrm ignores curves and warns).

use super::error::ImportError;
use super::material::f;
use glam::Vec3;
use serde_json::Value;

/// What the gaze moves: the eye bones, or the lookUp/Down/Left/Right expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookAtType {
    Bone,
    Expression,
}

/// One of the four maps from gaze angle (degrees, >= 0) to output (eye degrees for bones, a
/// weight for expressions): `output_scale * curve(min(angle, input_max) / input_max)`, where
/// the curve is the identity unless a VRM 0.x file gives one.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeMap {
    pub input_max: f32,
    pub output_scale: f32,
    /// VRM 0.x `AnimationCurve` keys `[time, value, in_tangent, out_tangent]`, times rising.
    pub curve: Option<Vec<[f32; 4]>>,
}

impl RangeMap {
    pub fn linear(input_max: f32, output_scale: f32) -> Self {
        RangeMap {
            input_max,
            output_scale,
            curve: None,
        }
    }

    /// The output for a gaze angle in degrees (negative angles count as 0).
    pub fn map(&self, angle_deg: f32) -> f32 {
        let a = if angle_deg.is_finite() {
            angle_deg.max(0.0)
        } else {
            0.0
        };
        let t = (a.min(self.input_max) / self.input_max).clamp(0.0, 1.0);
        let y = match &self.curve {
            Some(keys) => hermite_curve(keys, t),
            None => t,
        };
        self.output_scale * y
    }
}

/// Unity's `AnimationCurve.Evaluate` for unweighted keys: a cubic Hermite segment between the
/// two keys around `t` (tangents are slopes, so they scale by the segment length); before the
/// first and after the last key the curve holds that key's value.
pub fn hermite_curve(keys: &[[f32; 4]], t: f32) -> f32 {
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return t;
    };
    if t <= first[0] {
        return first[1];
    }
    if t >= last[0] {
        return last[1];
    }
    for w in keys.windows(2) {
        let (k0, k1) = (w[0], w[1]);
        if t <= k1[0] {
            let dt = k1[0] - k0[0];
            if dt <= 0.0 {
                return k1[1];
            }
            let s = (t - k0[0]) / dt;
            let (s2, s3) = (s * s, s * s * s);
            return (2.0 * s3 - 3.0 * s2 + 1.0) * k0[1]
                + (s3 - 2.0 * s2 + s) * k0[3] * dt
                + (-2.0 * s3 + 3.0 * s2) * k1[1]
                + (s3 - s2) * k1[2] * dt;
        }
    }
    last[1]
}

#[derive(Debug, Clone, PartialEq)]
pub struct LookAtAsset {
    pub kind: LookAtType,
    /// The node the eye point hangs on: VRM 0.x `firstPersonBone`, else the humanoid head.
    pub head: Option<usize>,
    /// The eye point in the head node's space (glTF axes: VRM 0.x's Unity z is negated).
    pub offset_from_head: Vec3,
    pub horizontal_inner: RangeMap,
    pub horizontal_outer: RangeMap,
    pub vertical_down: RangeMap,
    pub vertical_up: RangeMap,
    /// Read from VRM 0.x `firstPerson` (the model faces -Z).
    pub from_vrm0: bool,
}

fn bad(file: &str, what: &str, msg: String) -> ImportError {
    ImportError::new(file, format!("{what}: {msg}"))
}

/// Checks an input maximum: a positive number of degrees up to 180 (the spec's range).
fn input_max(file: &str, what: &str, v: f32) -> Result<f32, ImportError> {
    if v > 0.0 && v <= 180.0 {
        Ok(v)
    } else {
        Err(bad(
            file,
            what,
            format!("{v} degrees; must be above 0 and at most 180"),
        ))
    }
}

fn output_scale(file: &str, what: &str, v: f32) -> Result<f32, ImportError> {
    if v >= 0.0 && v.is_finite() {
        Ok(v)
    } else {
        Err(bad(file, what, format!("{v}; must be 0 or more")))
    }
}

/// VRM 1.0 `lookAt` (None when absent). Defaults as three-vrm: 90 degrees in, and 1 (a full
/// weight) out for expressions, 10 degrees for bones; eye point 6 cm above the head.
pub fn read_v1(
    file: &str,
    v: &Value,
    head: Option<usize>,
) -> Result<Option<LookAtAsset>, ImportError> {
    let Some(l) = v.get("lookAt").filter(|l| l.is_object()) else {
        return Ok(None);
    };
    let kind = match l.get("type").and_then(Value::as_str) {
        None | Some("bone") => LookAtType::Bone,
        Some("expression") => LookAtType::Expression,
        Some(other) => {
            return Err(bad(
                file,
                "VRMC_vrm lookAt.type",
                format!("\"{other}\"; allowed: \"bone\", \"expression\""),
            ))
        }
    };
    let default_out = if kind == LookAtType::Expression {
        1.0
    } else {
        10.0
    };
    let map = |key: &str| -> Result<RangeMap, ImportError> {
        let m = l.get(key).cloned().unwrap_or(Value::Null);
        let what_in = format!("VRMC_vrm lookAt.{key}.inputMaxValue");
        let what_out = format!("VRMC_vrm lookAt.{key}.outputScale");
        Ok(RangeMap::linear(
            input_max(file, &what_in, f(&m, "inputMaxValue", 90.0))?,
            output_scale(file, &what_out, f(&m, "outputScale", default_out))?,
        ))
    };
    let offset = l
        .get("offsetFromHeadBone")
        .and_then(Value::as_array)
        .map(|a| {
            let c = |i: usize| {
                a.get(i)
                    .and_then(Value::as_f64)
                    .map(|x| x as f32)
                    .filter(|x| x.is_finite())
            };
            match (c(0), c(1), c(2)) {
                (Some(x), Some(y), Some(z)) => Ok(Vec3::new(x, y, z)),
                _ => Err(bad(
                    file,
                    "VRMC_vrm lookAt.offsetFromHeadBone",
                    "must be 3 finite numbers".to_string(),
                )),
            }
        })
        .transpose()?
        .unwrap_or(Vec3::new(0.0, 0.06, 0.0));
    Ok(Some(LookAtAsset {
        kind,
        head,
        offset_from_head: offset,
        horizontal_inner: map("rangeMapHorizontalInner")?,
        horizontal_outer: map("rangeMapHorizontalOuter")?,
        vertical_down: map("rangeMapVerticalDown")?,
        vertical_up: map("rangeMapVerticalUp")?,
        from_vrm0: false,
    }))
}

/// VRM 0.x `firstPerson` (None when absent). `head` is the humanoid head, used when the file
/// names no `firstPersonBone`.
pub fn read_v0(
    file: &str,
    v: &Value,
    head: Option<usize>,
    node_count: usize,
) -> Result<Option<LookAtAsset>, ImportError> {
    let Some(fp) = v.get("firstPerson").filter(|l| l.is_object()) else {
        return Ok(None);
    };
    let kind = match fp.get("lookAtTypeName").and_then(Value::as_str) {
        None | Some("Bone") => LookAtType::Bone,
        Some("BlendShape") => LookAtType::Expression,
        Some(other) => {
            return Err(bad(
                file,
                "VRM firstPerson.lookAtTypeName",
                format!("\"{other}\"; allowed: \"Bone\", \"BlendShape\""),
            ))
        }
    };
    // Some exporters write -1 for "no bone".
    let bone = match fp.get("firstPersonBone").and_then(Value::as_i64) {
        Some(n) if n >= 0 && (n as usize) < node_count => Some(n as usize),
        Some(n) if n >= 0 => {
            return Err(bad(
                file,
                "VRM firstPerson.firstPersonBone",
                format!("node {n} out of range"),
            ))
        }
        _ => None,
    };
    let default_out = if kind == LookAtType::Expression {
        1.0
    } else {
        10.0
    };
    let map = |key: &str| -> Result<RangeMap, ImportError> {
        let m = fp.get(key).cloned().unwrap_or(Value::Null);
        let what = format!("VRM firstPerson.{key}");
        let curve = match m.get("curve").and_then(Value::as_array) {
            None => None,
            Some(a) => Some(read_curve(file, &what, a)?),
        };
        Ok(RangeMap {
            input_max: input_max(file, &format!("{what}.xRange"), f(&m, "xRange", 90.0))?,
            output_scale: output_scale(
                file,
                &format!("{what}.yRange"),
                f(&m, "yRange", default_out),
            )?,
            curve,
        })
    };
    let o = fp
        .get("firstPersonBoneOffset")
        .cloned()
        .unwrap_or(Value::Null);
    Ok(Some(LookAtAsset {
        kind,
        head: bone.or(head),
        // Unity's z points the other way from glTF's (three-vrm negates it too).
        offset_from_head: Vec3::new(f(&o, "x", 0.0), f(&o, "y", 0.06), -f(&o, "z", 0.0)),
        horizontal_inner: map("lookAtHorizontalInner")?,
        horizontal_outer: map("lookAtHorizontalOuter")?,
        vertical_down: map("lookAtVerticalDown")?,
        vertical_up: map("lookAtVerticalUp")?,
        from_vrm0: true,
    }))
}

/// A VRM 0.x curve: 4 finite numbers per key, key times rising. An empty array is no curve.
fn read_curve(file: &str, what: &str, a: &[Value]) -> Result<Vec<[f32; 4]>, ImportError> {
    if !a.len().is_multiple_of(4) {
        return Err(bad(
            file,
            &format!("{what}.curve"),
            format!(
                "{} numbers; must be 4 per key (time, value, in, out)",
                a.len()
            ),
        ));
    }
    let mut keys = Vec::with_capacity(a.len() / 4);
    for (k, chunk) in a.chunks(4).enumerate() {
        let mut key = [0.0f32; 4];
        for (i, x) in chunk.iter().enumerate() {
            key[i] = x
                .as_f64()
                .map(|x| x as f32)
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    bad(
                        file,
                        &format!("{what}.curve"),
                        format!("key {k} holds {x}; must be finite numbers"),
                    )
                })?;
        }
        if keys.last().is_some_and(|p: &[f32; 4]| key[0] <= p[0]) {
            return Err(bad(
                file,
                &format!("{what}.curve"),
                format!("key {k} time {} does not rise", key[0]),
            ));
        }
        keys.push(key);
    }
    Ok(keys)
}
