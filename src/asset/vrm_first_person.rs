//! First-person mesh annotations (VRM 1.0 `firstPerson.meshAnnotations`: node and type; VRM 0.x
//! `firstPerson.meshAnnotations`: mesh and `firstPersonFlag`), read for `throng inspect`. The
//! game has no first-person camera, so they change nothing it draws; an entry that names no
//! node or mesh of the file is left out rather than failing a model over a hint.

use serde_json::Value;

/// One annotation: which node (1.0) or mesh (0.x) and how it shows in first person ("auto",
/// "both", "thirdPersonOnly", "firstPersonOnly"; 0.x's capitalised flags are lower-cased the
/// same way).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstPersonAnnotation {
    pub node: Option<usize>,
    pub mesh: Option<usize>,
    pub kind: String,
}

/// VRM 0.x's "ThirdPersonOnly" as 1.0's "thirdPersonOnly".
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The annotations of a `firstPerson` object; `node_count` / `mesh_count` bound the indices.
pub fn read(
    first_person: Option<&Value>,
    node_count: usize,
    mesh_count: usize,
) -> Vec<FirstPersonAnnotation> {
    let Some(list) = first_person
        .and_then(|f| f.get("meshAnnotations"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    let index = |a: &Value, key: &str, len: usize| {
        a.get(key)
            .and_then(Value::as_u64)
            .map(|i| i as usize)
            .filter(|&i| i < len)
    };
    list.iter()
        .filter_map(|a| {
            let kind = a
                .get("type")
                .or_else(|| a.get("firstPersonFlag"))
                .and_then(Value::as_str)
                .map(lower_first)?;
            let node = index(a, "node", node_count);
            let mesh = index(a, "mesh", mesh_count);
            (node.is_some() || mesh.is_some()).then_some(FirstPersonAnnotation { node, mesh, kind })
        })
        .collect()
}
