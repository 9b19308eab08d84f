//! VRMC_springBone_extended_collider: a VRMC_springBone collider's extension that replaces its
//! shape with an inside sphere, an inside capsule or a plane.
//!
//! The fallback rule: the collider's own `shape` is what readers without the extension use
//! (exporters put a far-away or huge sphere there), so a reader that knows it uses the
//! extension's shape instead. An extension this reader cannot use (a spec version other than
//! "1.0" / "1.0-draft", as three-vrm checks, or no shape it knows) leaves the fallback in
//! place, as for a reader without the extension. Numbers that are there must be valid.

use glam::Vec3;
use serde_json::Value;

use super::error::ImportError;
use super::vrm_spring::{err, radius, vec3, SpringColliderShape};

pub const EXTENSION: &str = "VRMC_springBone_extended_collider";
/// The spec versions this reader implements (the spec's draft named itself "1.0-draft").
const SPEC_VERSIONS: [&str; 2] = ["1.0", "1.0-draft"];

/// The extended shape of VRMC_springBone collider `c`, None when it has no usable one.
pub fn read(file: &str, what: &str, c: &Value) -> Result<Option<SpringColliderShape>, ImportError> {
    let Some(ext) = c.get("extensions").and_then(|e| e.get(EXTENSION)) else {
        return Ok(None);
    };
    let version = ext.get("specVersion").and_then(Value::as_str);
    if !version.is_some_and(|v| SPEC_VERSIONS.contains(&v)) {
        return Ok(None);
    }
    let Some(shape) = ext.get("shape") else {
        return Ok(None);
    };
    let what = format!("{what} {EXTENSION}");
    let inside = |s: &Value| s.get("inside").and_then(Value::as_bool).unwrap_or(false);
    if let Some(s) = shape.get("sphere") {
        let offset = vec3(file, &what, s, "offset", Vec3::ZERO)?;
        let radius = radius(file, &what, s)?;
        return Ok(Some(if inside(s) {
            SpringColliderShape::InsideSphere { offset, radius }
        } else {
            SpringColliderShape::Sphere { offset, radius }
        }));
    }
    if let Some(s) = shape.get("capsule") {
        let offset = vec3(file, &what, s, "offset", Vec3::ZERO)?;
        let tail = vec3(file, &what, s, "tail", Vec3::ZERO)?;
        let radius = radius(file, &what, s)?;
        return Ok(Some(if inside(s) {
            SpringColliderShape::InsideCapsule {
                offset,
                tail,
                radius,
            }
        } else {
            SpringColliderShape::Capsule {
                offset,
                tail,
                radius,
            }
        }));
    }
    if let Some(s) = shape.get("plane") {
        let offset = vec3(file, &what, s, "offset", Vec3::ZERO)?;
        let normal = vec3(file, &what, s, "normal", Vec3::Z)?;
        // "MUST be normalized": a slightly long one is normalised, a zero one has no side.
        let Some(normal) = normal.try_normalize() else {
            return Err(err(
                file,
                format!("{what}: the plane's \"normal\" is a zero vector"),
            ));
        };
        return Ok(Some(SpringColliderShape::Plane { offset, normal }));
    }
    // A shape this reader does not know: the fallback.
    Ok(None)
}
