#![allow(dead_code)]
//! Builds small self-contained .gltf files (base64 buffer) for rule and validation tests.
use serde_json::{json, Value};

pub struct Builder {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    pub fn new() -> Self {
        Self {
            bin: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
        }
    }

    fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let off = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views
            .push(json!({"buffer": 0, "byteOffset": off, "byteLength": bytes.len()}));
        self.views.len() - 1
    }

    /// f32 accessor of `ty` ("SCALAR", "VEC3", ...). Returns the accessor index.
    pub fn f32s(&mut self, ty: &str, data: &[f32]) -> usize {
        let comps = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        let v = self.view(&bytes);
        let mut a = json!({"bufferView": v, "componentType": 5126, "count": data.len() / comps, "type": ty});
        if ty == "SCALAR" && !data.is_empty() {
            let mn = data.iter().cloned().fold(f32::INFINITY, f32::min);
            let mx = data.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
            a["min"] = json!([mn]);
            a["max"] = json!([mx]);
        }
        if ty == "VEC3" {
            let mut mn = [f32::INFINITY; 3];
            let mut mx = [f32::NEG_INFINITY; 3];
            for c in data.chunks(3) {
                for k in 0..3 {
                    mn[k] = mn[k].min(c[k]);
                    mx[k] = mx[k].max(c[k]);
                }
            }
            a["min"] = json!(mn);
            a["max"] = json!(mx);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    /// u8 accessor (component 5121), optionally normalized.
    pub fn u8s(&mut self, ty: &str, data: &[u8], normalized: bool) -> usize {
        let comps = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            _ => 4,
        };
        let v = self.view(data);
        let mut a = json!({"bufferView": v, "componentType": 5121, "count": data.len() / comps, "type": ty});
        if normalized {
            a["normalized"] = json!(true);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    pub fn u16_indices(&mut self, data: &[u16]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        let v = self.view(&bytes);
        self.accessors.push(
            json!({"bufferView": v, "componentType": 5123, "count": data.len(), "type": "SCALAR"}),
        );
        self.accessors.len() - 1
    }

    /// Makes accessor `acc` sparse: replaces elements `idx` with VEC3 `values`.
    pub fn sparse_vec3(&mut self, acc: usize, idx: &[u16], values: &[f32]) {
        let ib: Vec<u8> = idx.iter().flat_map(|f| f.to_le_bytes()).collect();
        let vb: Vec<u8> = values.iter().flat_map(|f| f.to_le_bytes()).collect();
        let iv = self.view(&ib);
        let vv = self.view(&vb);
        self.accessors[acc]["sparse"] = json!({
            "count": idx.len(),
            "indices": {"bufferView": iv, "componentType": 5123},
            "values": {"bufferView": vv},
        });
        // Keep min/max valid for the validator: drop them (optional unless POSITION... keep wide).
        self.accessors[acc]["min"] = json!([-100.0, -100.0, -100.0]);
        self.accessors[acc]["max"] = json!([100.0, 100.0, 100.0]);
    }

    /// Finishes `doc` (which must not set buffers/bufferViews/accessors) into .gltf bytes.
    pub fn finish(&self, mut doc: Value) -> Vec<u8> {
        doc["asset"] = json!({"version": "2.0"});
        doc["buffers"] = json!([{"byteLength": self.bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64(&self.bin))}]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        serde_json::to_vec(&doc).unwrap()
    }
}

/// A binary glTF (GLB): the JSON chunk padded with spaces, then `bin` padded with zeros as the
/// binary chunk.
pub fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).expect("json");
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

pub fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        s.push(T[(n >> 18) as usize & 63] as char);
        s.push(T[(n >> 12) as usize & 63] as char);
        s.push(if c.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        s.push(if c.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    s
}

/// A two-bone skinned triangle with one rotation clip "Walk" on joint 1, as a JSON value and
/// builder, so tests can break one thing and check the error.
pub fn skinned_triangle() -> (Builder, Value) {
    skinned_triangle_keys([0.0, 0.5, 1.0])
}

/// [`skinned_triangle`] with its clip's three keys at `times` (e.g. a last key at 1e5 s for a
/// clip far too long to bake).
pub fn skinned_triangle_keys(times: [f32; 3]) -> (Builder, Value) {
    let mut b = Builder::new();
    let pos = b.f32s("VEC3", &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let joints = b.u8s("VEC4", &[0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0], false);
    let weights = b.f32s(
        "VEC4",
        &[1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    );
    let ibm = b.f32s(
        "MAT4",
        &[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0,
            0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
        ],
    );
    let times = b.f32s("SCALAR", &times);
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let rots = b.f32s(
        "VEC4",
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h, h, 0.0, 0.0, 1.0, 0.0],
    );
    let doc = json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "body", "mesh": 0, "skin": 0},
            {"name": "root", "children": [2]},
            {"name": "tip", "translation": [0.0, 1.0, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "animations": [{"name": "Walk", "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}],
            "samplers": [{"input": times, "output": rots}]}]
    });
    (b, doc)
}
