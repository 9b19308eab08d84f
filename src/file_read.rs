//! Reading a file a user named (a level, a model, a model's buffer or image) without trusting it:
//! only regular files are read, each is opened once, its length is checked on the opened handle
//! before any byte is read, and the read itself is capped, so `/dev/zero`, a FIFO, a tty or a
//! file that grows while being read can neither exhaust memory nor block the game.

use std::fmt;
use std::io;
use std::path::Path;
#[cfg(not(target_arch = "wasm32"))]
use std::{
    fs::{File, Metadata, OpenOptions},
    io::Read,
};

/// Why a user file was not read. `Display` gives the reason only; callers name the file.
#[derive(Debug)]
pub enum FileReadError {
    /// Opening or reading failed (missing file, no permission, ...).
    Io(io::Error),
    /// The path is something other than a regular file: a directory, FIFO, device or socket.
    NotRegular(&'static str),
    /// Longer than the most this kind of file may hold.
    TooLarge { len: u64, max: u64 },
    /// Shorter than the length the referring file declares.
    TooShort { len: u64, need: u64 },
}

impl fmt::Display for FileReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileReadError::Io(e) => write!(f, "{e}"),
            FileReadError::NotRegular(kind) => {
                write!(
                    f,
                    "it is {kind}, not a regular file; only regular files are read"
                )
            }
            FileReadError::TooLarge { len, max } => write!(
                f,
                "it holds {len} bytes or more; the most allowed is {max} bytes"
            ),
            FileReadError::TooShort { len, need } => {
                write!(f, "truncated: expected {need} bytes, found {len}")
            }
        }
    }
}

impl std::error::Error for FileReadError {}

impl From<io::Error> for FileReadError {
    fn from(e: io::Error) -> Self {
        FileReadError::Io(e)
    }
}

/// What a path names, as far as the readers care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    Regular,
    /// Exists but is no regular file (a directory, FIFO, device).
    Other,
    Missing,
}

/// Whether `path` is a regular file the readers would read. On the web: whether the page
/// fetched it (`web_files`).
pub fn probe(path: &Path) -> Probe {
    if cfg!(target_arch = "wasm32") {
        return match crate::web_files::contains(path) {
            true => Probe::Regular,
            false => Probe::Missing,
        };
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Probe::Regular,
        Ok(_) => Probe::Other,
        Err(_) => Probe::Missing,
    }
}

/// The web build's reads: from the files the page fetched, with the same length checks.
#[cfg(target_arch = "wasm32")]
fn fetched(path: &Path) -> Result<std::sync::Arc<Vec<u8>>, FileReadError> {
    crate::web_files::get(path).ok_or_else(|| {
        FileReadError::Io(io::Error::new(
            io::ErrorKind::NotFound,
            "not among the files this page fetched (files.txt in the web folder)",
        ))
    })
}

/// Reads the whole of a regular file of at most `max` bytes.
#[cfg(target_arch = "wasm32")]
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, FileReadError> {
    let bytes = fetched(path)?;
    let len = bytes.len() as u64;
    if len > max {
        return Err(FileReadError::TooLarge { len, max });
    }
    Ok(bytes.to_vec())
}

/// Reads the first `len` bytes of a fetched file that must hold at least that many.
#[cfg(target_arch = "wasm32")]
pub fn read_prefix(path: &Path, len: u64, max: u64) -> Result<Vec<u8>, FileReadError> {
    if len > max {
        return Err(FileReadError::TooLarge { len, max });
    }
    let bytes = fetched(path)?;
    let have = bytes.len() as u64;
    if have < len {
        return Err(FileReadError::TooShort {
            len: have,
            need: len,
        });
    }
    Ok(bytes[..len as usize].to_vec())
}

/// Reads the whole of a regular file of at most `max` bytes.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, FileReadError> {
    let (file, len) = open_regular(path)?;
    if len > max {
        return Err(FileReadError::TooLarge { len, max });
    }
    // `len` may be stale (the file grows) or 0 (files under /proc): the cap is the read itself.
    read_limited(file, len, max)
}

/// Reads the first `len` bytes of a regular file that must hold at least that many (a glTF
/// buffer whose `byteLength` says how much to take), refusing lengths above `max`.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_prefix(path: &Path, len: u64, max: u64) -> Result<Vec<u8>, FileReadError> {
    if len > max {
        return Err(FileReadError::TooLarge { len, max });
    }
    let (file, have) = open_regular(path)?;
    if have < len {
        return Err(FileReadError::TooShort {
            len: have,
            need: len,
        });
    }
    // Bytes past the declared length are not ours to read (and may never end).
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut bytes)?;
    if (bytes.len() as u64) < len {
        // The file shrank between the length check and the read.
        return Err(FileReadError::TooShort {
            len: bytes.len() as u64,
            need: len,
        });
    }
    Ok(bytes)
}

/// What `path` is, in words, when it is not a regular file.
#[cfg(not(target_arch = "wasm32"))]
fn kind_of(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a plain file")
}

/// Opens `path` for reading only when it is a regular file, and returns its length as the
/// opened handle sees it.
#[cfg(not(target_arch = "wasm32"))]
fn open_regular(path: &Path) -> Result<(File, u64), FileReadError> {
    // Checked before opening, because opening a FIFO waits for a writer and opening a device
    // can have effects of its own.
    let meta = std::fs::metadata(path)?;
    if let Some(kind) = kind_of(&meta) {
        return Err(FileReadError::NotRegular(kind));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Should the path be swapped for a FIFO after the check, opening still returns at
        // once and the check on the handle below refuses it.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = kind_of(&meta) {
        return Err(FileReadError::NotRegular(kind));
    }
    Ok((file, meta.len()))
}

/// Reads at most `max` bytes; more than `max` is an error rather than a silent cut. `hint` sizes
/// the first allocation (never above `max`).
#[cfg(not(target_arch = "wasm32"))]
fn read_limited(file: File, hint: u64, max: u64) -> Result<Vec<u8>, FileReadError> {
    let mut bytes = Vec::with_capacity(hint.min(max) as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    let len = bytes.len() as u64;
    if len > max {
        return Err(FileReadError::TooLarge { len, max });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_read_whole_and_capped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("a.txt");
        std::fs::write(&path, b"hello").expect("write");
        assert_eq!(read_capped(&path, 5).expect("reads"), b"hello");
        let err = read_capped(&path, 4).unwrap_err();
        assert_eq!(
            err.to_string(),
            "it holds 5 bytes or more; the most allowed is 4 bytes"
        );
        assert_eq!(read_prefix(&path, 3, 10).expect("reads"), b"hel");
        assert_eq!(
            read_prefix(&path, 8, 10).unwrap_err().to_string(),
            "truncated: expected 8 bytes, found 5"
        );
        assert!(matches!(
            read_prefix(&path, 11, 10),
            Err(FileReadError::TooLarge { len: 11, max: 10 })
        ));
        assert!(matches!(
            read_capped(dir.path(), 10),
            Err(FileReadError::NotRegular("a directory"))
        ));
        assert!(matches!(
            read_capped(&dir.path().join("none"), 10),
            Err(FileReadError::Io(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_at_once() {
        // /dev/zero never ends; reading it unchecked fills memory.
        let err = read_capped(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(
            err.to_string(),
            "it is a character device, not a regular file; only regular files are read"
        );
        assert!(matches!(
            read_prefix(Path::new("/dev/zero"), 16, 1 << 20),
            Err(FileReadError::NotRegular("a character device"))
        ));
        // A FIFO without a writer: opening it for reading would wait for ever.
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
        // Returning at all is the check (an open that waited for a writer never would); a
        // time bound would only add a way to fail on a busy machine.
        assert!(matches!(
            read_capped(&fifo, 1 << 20),
            Err(FileReadError::NotRegular("a FIFO (named pipe)"))
        ));
    }
}
