//! A model's side files and container framing: buffers and images are read only from regular
//! files, capped at their declared length, and every failure names the URI and the file; import
//! errors say what is wrong in one short line; a texture that failed shows as failed.

mod support;

use std::path::Path;

use serde_json::{json, Value};
use support::gltf_builder::{skinned_triangle, Builder};
use throng::asset::{load_file, load_slice};
use throng::tools::inspect::{run_inspect, InspectArgs};

/// The triangle as a .gltf whose buffer is the side file `uri` (the bytes are returned, for
/// writing that file).
fn triangle_with_buffer_uri(uri: &str) -> (Vec<u8>, Vec<u8>) {
    let (b, doc) = skinned_triangle();
    let mut doc: Value = serde_json::from_slice(&b.finish(doc)).expect("json");
    doc["buffers"][0]["uri"] = json!(uri);
    (serde_json::to_vec(&doc).expect("json"), b.bin.clone())
}

fn import_from(dir: &Path, name: &str, gltf: &[u8]) -> Result<throng::asset::SceneAsset, String> {
    let path = dir.join(name);
    std::fs::write(&path, gltf).expect("write");
    support::promptly(move || load_file(&path).map_err(|e| e.to_string()))
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

#[test]
fn a_buffer_uri_naming_a_device_is_refused_without_reading_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let uri = "../../../../../../../../dev/zero";
    let (gltf, _) = triangle_with_buffer_uri(uri);
    let err = import_from(dir.path(), "zero.gltf", &gltf).unwrap_err();
    assert_eq!(
        err,
        format!(
            "zero.gltf: buffer 0 (uri \"{uri}\", file {}): it is a character device, not a regular file; only regular files are read",
            dir.path().join(uri).display()
        )
    );
}

#[test]
fn a_buffer_uri_naming_a_fifo_is_refused_without_waiting() {
    let dir = tempfile::tempdir().expect("temp dir");
    mkfifo(&dir.path().join("pipe.bin"));
    let (gltf, _) = triangle_with_buffer_uri("pipe.bin");
    let err = import_from(dir.path(), "pipe.gltf", &gltf).unwrap_err();
    assert!(
        err.ends_with(
            "pipe.bin): it is a FIFO (named pipe), not a regular file; only regular files are read"
        ),
        "{err}"
    );
}

#[test]
fn a_short_side_buffer_is_truncated_with_both_lengths_and_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (gltf, bin) = triangle_with_buffer_uri("tri%20angle.bin");
    let file = dir.path().join("tri angle.bin");
    std::fs::write(&file, &bin[..bin.len() - 8]).expect("write");
    let err = import_from(dir.path(), "short.gltf", &gltf).unwrap_err();
    assert_eq!(
        err,
        format!(
            "short.gltf: buffer 0 (uri \"tri%20angle.bin\", file {}): truncated: expected {} bytes, found {}",
            file.display(),
            bin.len(),
            bin.len() - 8
        )
    );
    // The whole file imports, and one longer than declared is read up to its byteLength.
    let mut longer = bin.clone();
    longer.extend_from_slice(&[7; 64]);
    std::fs::write(&file, &longer).expect("write");
    import_from(dir.path(), "short.gltf", &gltf).expect("imports");
}

#[test]
fn other_uri_schemes_and_side_files_from_memory_are_refused_by_name() {
    let (gltf, _) = triangle_with_buffer_uri("https://example.com/tri.bin");
    let dir = tempfile::tempdir().expect("temp dir");
    assert_eq!(
        import_from(dir.path(), "web.gltf", &gltf).unwrap_err(),
        "web.gltf: buffer 0 (uri \"https://example.com/tri.bin\"): unsupported URI scheme; allowed: relative paths, file: and data:"
    );
    let (gltf, _) = triangle_with_buffer_uri("tri.bin");
    assert_eq!(
        load_slice("mem.gltf", &gltf, None).unwrap_err().to_string(),
        "mem.gltf: buffer 0 (uri \"tri.bin\"): refers to a side file, but the model was read from memory"
    );
}

/// The triangle as GLB: the JSON chunk, then the buffer as the binary chunk.
fn triangle_glb() -> Vec<u8> {
    let (b, doc) = skinned_triangle();
    let mut doc: Value = serde_json::from_slice(&b.finish(doc)).expect("json");
    doc["buffers"] = json!([{"byteLength": b.bin.len()}]);
    support::gltf_builder::glb(&doc, &b.bin)
}

#[test]
fn a_truncated_glb_says_truncated_with_both_lengths() {
    let glb = triangle_glb();
    load_slice("Tri.glb", &glb, None).expect("the whole GLB imports");
    let cut = &glb[..glb.len() - 40];
    assert_eq!(
        load_slice("Tri.glb", cut, None).unwrap_err().to_string(),
        format!(
            "Tri.glb: truncated GLB: the header declares {} bytes, found {}",
            glb.len(),
            cut.len()
        )
    );
    // A header that agrees with the cut, but a binary chunk that does not.
    let mut relabelled = cut.to_vec();
    relabelled[8..12].copy_from_slice(&(cut.len() as u32).to_le_bytes());
    let err = load_slice("Tri.glb", &relabelled, None)
        .unwrap_err()
        .to_string();
    let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
    let bin_len = glb.len() - 12 - 8 - json_len - 8;
    assert_eq!(
        err,
        format!(
            "Tri.glb: truncated GLB: the binary chunk declares {bin_len} bytes, found {}",
            bin_len - 40
        )
    );
    assert_eq!(
        load_slice("Tri.glb", &glb[..7], None)
            .unwrap_err()
            .to_string(),
        "Tri.glb: truncated GLB: the header needs 12 bytes, found 7"
    );
}

#[test]
fn validation_errors_are_prefixed_once_and_long_lists_summarised() {
    let (b, mut doc) = skinned_triangle();
    doc["nodes"][0]["mesh"] = json!(7);
    assert_eq!(
        load_slice("Test.gltf", &b.finish(doc), None)
            .unwrap_err()
            .to_string(),
        "Test.gltf: invalid glTF: nodes[0].mesh: Index out of bounds"
    );
    let (b, mut doc) = skinned_triangle();
    let nodes: Vec<Value> = (0..10).map(|_| json!({"mesh": 7})).collect();
    doc["nodes"] = json!(nodes);
    doc["scenes"] = json!([{"nodes": [0]}]);
    doc["skins"] = json!([]);
    doc["animations"] = json!([]);
    assert_eq!(
        load_slice("Test.gltf", &b.finish(doc), None)
            .unwrap_err()
            .to_string(),
        "Test.gltf: invalid glTF: nodes[0].mesh: Index out of bounds; nodes[1].mesh: Index out of bounds; nodes[2].mesh: Index out of bounds (and 7 more problems)"
    );
}

#[test]
fn messages_quoting_the_file_are_cut_to_one_short_line() {
    let (b, mut doc) = skinned_triangle();
    let name = format!("EXT_{}\nsecond line", "x".repeat(5000));
    doc["extensionsRequired"] = json!([name]);
    let err = load_slice("Test.gltf", &b.finish(doc), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("Test.gltf: unsupported required extension \"EXT_xxxx"),
        "{err}"
    );
    assert!(
        err.ends_with("... (4649 more characters cut)"),
        "{}",
        &err[err.len() - 60..]
    );
    assert_eq!(err.lines().count(), 1);
    assert!(err.chars().count() < 500, "{} characters", err.len());
}

/// The triangle with one textured material whose image is `image`.
fn textured_triangle(image: Value) -> Vec<u8> {
    let (b, mut doc) = skinned_triangle();
    doc["images"] = json!([image]);
    doc["textures"] = json!([{"source": 0}]);
    doc["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    b.finish(doc)
}

fn inspect(model: &Path, json: bool) -> String {
    run_inspect(&InspectArgs {
        model: model.to_path_buf(),
        json,
        pose: None,
        time: 0.0,
        morph: Vec::new(),
        expression: Vec::new(),
        trace: false,
        motion: throng::tools::trace::TraceMotion::Idle,
        seconds: 2.0,
        fps: 60,
    })
    .expect("inspect runs")
}

#[test]
fn a_texture_that_failed_to_load_is_reported_as_failed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("textured.gltf");
    std::fs::write(&model, textured_triangle(json!({"uri": "missing.png"}))).expect("write");
    let scene = load_file(&model).expect("a broken texture does not fail the model");
    let why = format!(
        "image 0 could not be decoded (uri \"missing.png\", file {}: No such file or directory (os error 2))",
        dir.path().join("missing.png").display()
    );
    assert!(scene.textures[0].fallback);
    assert_eq!(scene.textures[0].error.as_deref(), Some(why.as_str()));
    assert_eq!(
        scene.warnings,
        vec![format!("texture 0: {why}; using white")]
    );

    let text = inspect(&model, false);
    assert!(text.contains("textures: 1 (1 failed)\n"), "{text}");
    assert!(
        text.contains(&format!("FAILED, white stand-in: {why}")),
        "{text}"
    );
    let v: Value = serde_json::from_str(&inspect(&model, true)).expect("json");
    assert_eq!(v["textures"][0]["loaded"], json!(false));
    assert_eq!(v["textures"][0]["error"], json!(why));
}

#[test]
fn image_side_files_are_read_capped_and_decoded_with_limits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = dir.path().join("zero.gltf");
    let uri = "../../../../../../../../dev/zero";
    std::fs::write(
        &model,
        textured_triangle(json!({"uri": uri, "mimeType": "image/png"})),
    )
    .expect("write");
    let scene = support::promptly(move || load_file(&model).expect("imports"));
    assert_eq!(
        scene.textures[0].error.as_deref(),
        Some(
            format!(
                "image 0 could not be decoded (uri \"{uri}\", file {}: it is a character device, not a regular file; only regular files are read)",
                dir.path().join(uri).display()
            )
            .as_str()
        )
    );
    // A valid PNG header claiming 100000 x 100000 pixels is refused before decoding.
    let mut png = Vec::new();
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    png.extend_from_slice(&13u32.to_be_bytes());
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    png.extend_from_slice(&ihdr);
    png.extend_from_slice(&crc32(&ihdr).to_be_bytes());
    std::fs::write(dir.path().join("huge.png"), &png).expect("write");
    let model = dir.path().join("huge.gltf");
    std::fs::write(&model, textured_triangle(json!({"uri": "huge.png"}))).expect("write");
    let scene = load_file(&model).expect("imports");
    let why = scene.textures[0].error.clone().expect("failed");
    assert!(
        why.starts_with("image 0 could not be decoded (uri \"huge.png\": ")
            && why.contains("limit"),
        "{why}"
    );
    let _ = Builder::new();
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
