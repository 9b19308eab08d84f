//! The impostor atlas on disk, so a restart with the same models does not bake again. The file
//! is named by a key over everything that decides the pictures (every body's near mesh, the
//! animation texture, the layout and the format version) and holds the key, the size and a
//! checksum again: a file that is short, damaged or made for something else is refused with a
//! reason (the caller bakes again), never trusted.
//!
//! Where: `$XDG_CACHE_HOME/throng/` when that is set, else `.throng-cache/` in the working
//! folder. Written through `files::write_atomic`.

use std::path::{Path, PathBuf};

use super::impostor_layout::{ImpostorLayout, FORMAT_VERSION};
use super::CrowdAssets;

const MAGIC: &[u8; 8] = b"THRIMPO1";
/// magic, version, key, width, height, checksum.
const HEADER_BYTES: usize = 8 + 4 + 8 + 4 + 4 + 8;
/// The largest atlas file read back (twice the 64 MB the plaza needs, and the header).
pub const MAX_CACHE_BYTES: u64 = 256 << 20;

/// The baked pictures as RGBA8 rows, bottom row first (as GL reads and uploads them).
#[derive(Debug, Clone, PartialEq)]
pub struct AtlasImages {
    pub width: u32,
    pub height: u32,
    /// Base colour (rgb) and coverage (a).
    pub color: Vec<u8>,
    /// Normal in the body's frame (rgb as n * 0.5 + 0.5) and tint class / 3 (a).
    pub normal: Vec<u8>,
}

/// A 64-bit FNV-1a style hash over 32-bit words: stable across runs and builds.
#[derive(Debug, Clone, Copy)]
pub struct KeyHasher(u64);

impl Default for KeyHasher {
    fn default() -> Self {
        KeyHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl KeyHasher {
    pub fn word(&mut self, w: u32) {
        self.0 = (self.0 ^ w as u64).wrapping_mul(0x0000_0100_0000_01b3);
        self.0 ^= self.0 >> 29;
    }

    pub fn floats(&mut self, v: &[f32]) {
        self.word(v.len() as u32);
        for f in v {
            self.word(f.to_bits());
        }
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.word(b.len() as u32);
        for c in b.chunks(4) {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            self.word(u32::from_le_bytes(w));
        }
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The key of the atlas `layout` bakes from `assets`.
pub fn cache_key(assets: &CrowdAssets, layout: &ImpostorLayout) -> u64 {
    let mut h = KeyHasher::default();
    h.word(FORMAT_VERSION);
    h.bytes(format!("{:?}", layout).as_bytes());
    for b in &assets.bodies {
        h.floats(&[b.units_per_metre, b.height]);
        if let Some(m) = assets
            .submeshes
            .get(b.submesh)
            .and_then(|s| s.lods[0].as_ref())
        {
            h.floats(&m.interleaved());
            h.word(m.indices.len() as u32);
            for &i in &m.indices {
                h.word(i);
            }
        }
    }
    h.word(assets.texture.width);
    h.word(assets.texture.rows);
    h.floats(&assets.texture.data);
    h.finish()
}

/// The folder the atlas cache lives in.
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("XDG_CACHE_HOME") {
        Some(d) if !d.is_empty() => PathBuf::from(d).join("throng"),
        _ => PathBuf::from(".throng-cache"),
    }
}

pub fn cache_path(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("impostors-{key:016x}.bin"))
}

fn checksum(images: &AtlasImages) -> u64 {
    let mut h = KeyHasher::default();
    h.bytes(&images.color);
    h.bytes(&images.normal);
    h.finish()
}

/// The file's bytes.
pub fn encode(key: u64, images: &AtlasImages) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + images.color.len() * 2);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&images.width.to_le_bytes());
    out.extend_from_slice(&images.height.to_le_bytes());
    out.extend_from_slice(&checksum(images).to_le_bytes());
    out.extend_from_slice(&images.color);
    out.extend_from_slice(&images.normal);
    out
}

/// Reads a file's bytes back, checking that it is this key's atlas of this size, whole.
pub fn decode(bytes: &[u8], key: u64, width: u32, height: u32) -> Result<AtlasImages, String> {
    let field = |at: usize, n: usize| bytes.get(at..at + n);
    let u32_at = |at: usize| field(at, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let u64_at = |at: usize| {
        field(at, 8).map(|b| {
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            u64::from_le_bytes(a)
        })
    };
    if field(0, 8) != Some(MAGIC.as_slice()) {
        return Err("not an impostor atlas file".into());
    }
    if u32_at(8) != Some(FORMAT_VERSION) {
        return Err("made by another version of throng".into());
    }
    if u64_at(12) != Some(key) {
        return Err("made for other models or settings".into());
    }
    if (u32_at(20), u32_at(24)) != (Some(width), Some(height)) {
        return Err(format!("not the {width}x{height} atlas expected"));
    }
    let plane = width as usize * height as usize * 4;
    if bytes.len() != HEADER_BYTES + 2 * plane {
        return Err(format!(
            "{} bytes where {} were expected (cut short?)",
            bytes.len(),
            HEADER_BYTES + 2 * plane
        ));
    }
    let images = AtlasImages {
        width,
        height,
        color: bytes[HEADER_BYTES..HEADER_BYTES + plane].to_vec(),
        normal: bytes[HEADER_BYTES + plane..].to_vec(),
    };
    if u64_at(28) != Some(checksum(&images)) {
        return Err("its pictures do not match their checksum (damaged)".into());
    }
    Ok(images)
}

/// The cached atlas: Ok(None) when there is none, Err(reason) when there is one that cannot be
/// used.
pub fn load(path: &Path, key: u64, width: u32, height: u32) -> Result<Option<AtlasImages>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = crate::file_read::read_capped(path, MAX_CACHE_BYTES).map_err(|e| e.to_string())?;
    decode(&bytes, key, width, height).map(Some)
}

/// Writes the atlas to `path`, creating its folder.
pub fn store(path: &Path, key: u64, images: &AtlasImages) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    crate::files::write_atomic(path, &encode(key, images)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn images() -> AtlasImages {
        AtlasImages {
            width: 3,
            height: 2,
            color: (0..24).collect(),
            normal: (100..124).collect(),
        }
    }

    #[test]
    fn round_trip_and_every_kind_of_bad_file_is_refused() {
        let bytes = encode(42, &images());
        assert_eq!(decode(&bytes, 42, 3, 2), Ok(images()));
        let err = |b: &[u8], key, w, h| decode(b, key, w, h).expect_err("refused");
        assert!(err(&bytes, 43, 3, 2).contains("other models"));
        assert!(err(&bytes, 42, 2, 3).contains("3x2") || err(&bytes, 42, 2, 3).contains("2x3"));
        assert!(err(&bytes[..bytes.len() - 1], 42, 3, 2).contains("cut short"));
        assert!(err(&bytes[..10], 42, 3, 2).contains("version"));
        assert!(err(b"hello", 42, 3, 2).contains("not an impostor"));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(err(&flipped, 42, 3, 2).contains("damaged"));
    }

    #[test]
    fn the_key_hash_is_stable_and_sensitive() {
        let mut a = KeyHasher::default();
        a.floats(&[1.0, 2.0]);
        let mut b = KeyHasher::default();
        b.floats(&[1.0, 2.0]);
        assert_eq!(a.finish(), b.finish());
        b.word(0);
        assert_ne!(a.finish(), b.finish());
        let mut c = KeyHasher::default();
        c.floats(&[1.0, 2.000001]);
        assert_ne!(a.finish(), c.finish());
    }

    #[test]
    fn a_missing_file_is_none_and_a_stored_one_loads() {
        let dir =
            std::env::temp_dir().join(format!("throng-impostor-cache-{}", std::process::id()));
        let path = cache_path(&dir, 7);
        assert_eq!(load(&path, 7, 3, 2), Ok(None));
        store(&path, 7, &images()).expect("written");
        assert_eq!(load(&path, 7, 3, 2), Ok(Some(images())));
        assert!(load(&path, 8, 3, 2).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
