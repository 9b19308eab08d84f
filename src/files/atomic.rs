//! Atomic writes: a private temporary file in the target folder, written, flushed to disk, then
//! renamed over the final name.
//!
//! - The temporary name is unique per process and call (`.NAME.throng-tmp-PID-N`), so two writers
//!   never share one, and it is opened create-new, which refuses an existing name (a planted
//!   symbolic link included) instead of following it.
//! - On any failure the temporary file is removed; the final name keeps its old content, or stays
//!   absent.
//! - Temporary files that a killed run left behind (older than a minute, or whose process is
//!   gone) are removed by the next write into that folder.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// What every temporary name carries between the final name and `PID-N`.
pub const TEMP_MARKER: &str = ".throng-tmp-";

/// A temporary file untouched this long belongs to no write in progress: writes are made from
/// bytes already in memory and take well under a second.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// Long final names are cut in the temporary name so it stays under the 255-byte name limit.
const TEMP_NAME_KEEP: usize = 100;

static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// A failed write: the file it was for and the reason (usually the OS's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteError {
    pub path: PathBuf,
    pub reason: String,
}

impl WriteError {
    fn new(path: &Path, reason: impl fmt::Display) -> WriteError {
        WriteError {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write {}: {}",
            crate::shown::shown_path(&self.path),
            crate::shown::one_line(&self.reason)
        )
    }
}

impl std::error::Error for WriteError {}

impl From<WriteError> for String {
    fn from(e: WriteError) -> String {
        e.to_string()
    }
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    stage(path, bytes)?.commit()
}

/// Writes what `produce` writes (an image encoder, say) to `path` atomically. An error from
/// `produce` abandons the write like an error of the disk.
pub fn write_atomic_with<E: fmt::Display>(
    path: &Path,
    produce: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), WriteError> {
    stage_through(path, buffered, produce)?.commit()
}

/// Writes `bytes` under a temporary name next to `path` and leaves the rename to
/// [`StagedFile::commit`], so several files can all be written before any of them appears.
pub fn stage(path: &Path, bytes: &[u8]) -> Result<StagedFile, WriteError> {
    stage_through(path, buffered, |w| w.write_all(bytes))
}

/// Writes several files as one set: every file is written in full under its temporary name
/// first, and only then are they renamed into place, in the order given (put the file a reader
/// looks for first, a manifest say, last). A failure while writing leaves every final name as
/// it was; nothing of the set appears. Returns the final paths.
pub fn write_set(
    files: &[(impl AsRef<Path>, impl AsRef<[u8]>)],
) -> Result<Vec<PathBuf>, WriteError> {
    let mut staged = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        staged.push(stage(path.as_ref(), bytes.as_ref())?);
    }
    let mut out = Vec::with_capacity(staged.len());
    for file in staged {
        let dest = file.path().to_path_buf();
        file.commit()?;
        out.push(dest);
    }
    Ok(out)
}

/// What [`replace_in_place`] wrote: the file itself (the target when `path` is a link).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    pub file: PathBuf,
}

/// Replaces the contents of an existing file a user owns (a level saved from the game) the way
/// an editor would: through a symbolic link to the file it names (the link stays a link), with
/// the file's permissions and owner kept, and refused when the file is read-only (its mode
/// allows no one to write it), since that is the user's choice and root could override it. The
/// write itself is atomic, as [`write_atomic`]'s. `backup`, when given, first receives `old`
/// (the text the file held) with the same permissions and owner, beside the real file.
pub fn replace_in_place(
    path: &Path,
    bytes: &[u8],
    backup: Option<(&Path, &[u8])>,
) -> Result<Replaced, WriteError> {
    // Every link in the chain is followed to the file itself.
    let file = std::fs::canonicalize(path).map_err(|e| WriteError::new(path, e))?;
    let meta = std::fs::metadata(&file).map_err(|e| WriteError::new(path, e))?;
    if !meta.is_file() {
        return Err(WriteError::new(path, "it is not a regular file"));
    }
    if meta.permissions().readonly() {
        return Err(WriteError::new(
            path,
            format!(
                "the file is read-only (mode {}); make it writable to save over it",
                mode_text(&meta)
            ),
        ));
    }
    let like = Some(&meta);
    if let Some((backup, old)) = backup {
        stage_like(backup, old, like)?.commit()?;
    }
    stage_like(&file, bytes, like)?.commit()?;
    Ok(Replaced { file })
}

#[cfg(unix)]
fn mode_text(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::PermissionsExt;
    format!("{:04o}", meta.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn mode_text(_meta: &std::fs::Metadata) -> String {
    "read-only".to_string()
}

/// Stages `bytes` for `path` with the permissions and owner of `like`.
fn stage_like(
    path: &Path,
    bytes: &[u8],
    like: Option<&std::fs::Metadata>,
) -> Result<StagedFile, WriteError> {
    let file = stage_through(path, buffered, |w| w.write_all(bytes))?;
    if let Some(meta) = like {
        // On failure the staged file is dropped, which removes the temporary.
        copy_owner_and_mode(&file.temp, meta).map_err(|e| WriteError::new(path, e))?;
    }
    Ok(file)
}

/// Gives the temporary file the owner and mode of the file it replaces. The owner first: a
/// change of owner may clear set-id bits, which the mode then restores. An owner this process
/// may not give (another user's file) is an error: the saved file would otherwise silently
/// change hands.
#[cfg(unix)]
fn copy_owner_and_mode(temp: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mine = std::fs::metadata(temp).map_err(|e| e.to_string())?;
    if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
        std::os::unix::fs::chown(temp, Some(meta.uid()), Some(meta.gid())).map_err(|e| {
            format!(
                "cannot keep the file's owner (user {}, group {}): {e}",
                meta.uid(),
                meta.gid()
            )
        })?;
    }
    let mode = meta.permissions().mode() & 0o7777;
    std::fs::set_permissions(temp, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot keep the file's permissions ({mode:04o}): {e}"))
}

#[cfg(not(unix))]
fn copy_owner_and_mode(temp: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    std::fs::set_permissions(temp, meta.permissions()).map_err(|e| e.to_string())
}

/// Proves that files can be created in `dir` (an existing folder, writable even where
/// permission bits say nothing, as for root on a read-only mount) and leaves nothing there.
pub fn check_writable_dir(dir: &Path) -> Result<(), WriteError> {
    let shown = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    if !shown.is_dir() {
        return Err(WriteError::new(shown, "no such folder"));
    }
    let (temp, file) = create_temp(shown, "write-probe", shown)?;
    drop(file);
    std::fs::remove_file(&temp).map_err(|e| WriteError::new(shown, e))
}

/// A fully written and synced temporary file waiting to be renamed over its final name; removed
/// when dropped without [`commit`](StagedFile::commit).
#[derive(Debug)]
pub struct StagedFile {
    temp: PathBuf,
    dest: PathBuf,
    committed: bool,
}

impl StagedFile {
    /// The final name.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Renames the temporary file over the final name.
    pub fn commit(mut self) -> Result<(), WriteError> {
        std::fs::rename(&self.temp, &self.dest).map_err(|e| WriteError::new(&self.dest, e))?;
        self.committed = true;
        // The rename itself reaches the disk with the folder; a failure here loses nothing the
        // caller could act on, the file is complete and in place.
        if let Ok(folder) = File::open(folder_of(&self.dest)) {
            let _ = folder.sync_all();
        }
        Ok(())
    }
}

impl Drop for StagedFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// How the temporary file is wrapped for writing: buffered in use, a failing disk in tests.
type Wrap = for<'a> fn(&'a mut File) -> Box<dyn Write + 'a>;

fn buffered(file: &mut File) -> Box<dyn Write + '_> {
    Box::new(BufWriter::with_capacity(1 << 16, file))
}

fn stage_through<E: fmt::Display>(
    path: &Path,
    wrap: Wrap,
    produce: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<StagedFile, WriteError> {
    let name = path
        .file_name()
        .ok_or_else(|| WriteError::new(path, "the path names no file"))?;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(WriteError::new(path, "a folder has that name"));
    }
    let (temp, mut file) = create_temp(folder_of(path), &name.to_string_lossy(), path)?;
    // From here on the staged file owns the temporary name: every early return removes it.
    let staged = StagedFile {
        temp,
        dest: path.to_path_buf(),
        committed: false,
    };
    {
        let mut writer = wrap(&mut file);
        produce(&mut *writer).map_err(|e| WriteError::new(path, e))?;
        writer.flush().map_err(|e| WriteError::new(path, e))?;
    }
    file.sync_all().map_err(|e| WriteError::new(path, e))?;
    Ok(staged)
}

/// The folder a file is written into (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Creates a new temporary file in `dir` for `name`; errors name `shown`.
fn create_temp(dir: &Path, name: &str, shown: &Path) -> Result<(PathBuf, File), WriteError> {
    remove_stale_temps(dir);
    let kept: String = name.chars().take(TEMP_NAME_KEEP).collect();
    let pid = std::process::id();
    // An existing name (a planted link, a leftover of an earlier process with this id) is
    // skipped, never opened.
    for _ in 0..64 {
        let n = NEXT_TEMP.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{kept}{TEMP_MARKER}{pid}-{n}"));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(WriteError::new(shown, e)),
        }
    }
    Err(WriteError::new(
        shown,
        "every temporary name tried is taken by another file",
    ))
}

/// The process id in a temporary name made by [`create_temp`], or `None` for any other name.
fn temp_owner(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    let at = name.rfind(TEMP_MARKER)?;
    let (pid, n) = name[at + TEMP_MARKER.len()..].split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n)).then(|| pid.parse().ok())?
}

/// Removes the temporary files of writes that can no longer finish. Regular files only: a link
/// that happens to carry the pattern is not ours.
fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temp_owner) else {
            continue;
        };
        // DirEntry::metadata does not follow links.
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if old || !process_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether a process with this id runs. Where that cannot be told, it is taken to run, so only
/// age removes its files.
fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let proc_root = Path::new("/proc");
    if !proc_root.join("self").exists() {
        return true;
    }
    proc_root.join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    /// A disk that fills up: accepts `room` bytes, then fails like a full disk.
    struct FullAfter<'a> {
        file: &'a mut File,
        room: usize,
    }

    impl Write for FullAfter<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                // ENOSPC, as a full disk reports it.
                return Err(io::Error::from_raw_os_error(28));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.file.write(&buf[..n])
        }
        fn flush(&mut self) -> io::Result<()> {
            self.file.flush()
        }
    }

    fn full_after_ten(file: &mut File) -> Box<dyn Write + '_> {
        Box::new(FullAfter { file, room: 10 })
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_the_bytes_and_leaves_only_the_final_name() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bench.csv");
        write_atomic(&path, b"first").expect("write");
        write_atomic(&path, b"second").expect("overwrite");
        assert_eq!(std::fs::read(&path).expect("read"), b"second");
        assert_eq!(names_in(dir.path()), ["bench.csv"]);
    }

    #[test]
    fn a_disk_that_fills_up_midway_leaves_no_file_and_no_temporary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("shot.png");
        let err = stage_through(&path, full_after_ten, |w| w.write_all(&[7u8; 100_000]))
            .expect_err("the disk is full");
        assert_eq!(err.path, path);
        assert!(err.to_string().starts_with("cannot write "), "{err}");
        assert!(err.reason.contains("No space left on device"), "{err}");
        assert_eq!(names_in(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_intact() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bench.png");
        write_atomic(&path, b"old picture").expect("write");
        let err = write_atomic_with(&path, |w| {
            w.write_all(b"half a pic")?;
            Err::<(), _>(io::Error::other("encoder failed"))
        })
        .expect_err("the producer failed");
        assert_eq!(err.reason, "encoder failed");
        assert_eq!(std::fs::read(&path).expect("read"), b"old picture");
        assert_eq!(names_in(dir.path()), ["bench.png"]);
    }

    #[test]
    fn a_folder_at_the_final_name_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("x.png");
        std::fs::create_dir(&path).expect("mkdir");
        let err = write_atomic(&path, b"png").expect_err("a folder is in the way");
        assert_eq!(
            err.to_string(),
            format!("cannot write {}: a folder has that name", path.display())
        );
        assert_eq!(names_in(dir.path()), ["x.png"]);
        assert!(path.is_dir());
    }

    #[test]
    fn a_path_under_a_regular_file_names_the_os_reason() {
        // Root writes into read-only folders, so this stands in for a folder that refuses files.
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("plain");
        std::fs::write(&file, b"x").expect("write");
        let path = file.join("s.json");
        let err = write_atomic(&path, b"{}").expect_err("not a folder");
        let line = err.to_string();
        assert!(line.starts_with(&format!("cannot write {}: ", path.display())));
        assert!(line.contains("Not a directory"), "{line}");
        assert_eq!(line.lines().count(), 1);
        assert!(check_writable_dir(&file).is_err());
        assert!(check_writable_dir(&dir.path().join("missing"))
            .expect_err("missing")
            .to_string()
            .ends_with("no such folder"));
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_the_next_temporary_name_is_not_followed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, b"precious").expect("write");
        let path = dir.path().join("bench.csv");
        let pid = std::process::id();
        // Links at the next names this process will try (other tests may take some first).
        let next = NEXT_TEMP.load(Ordering::Relaxed);
        let links: Vec<PathBuf> = (next..next + 10)
            .map(|n| dir.path().join(format!(".bench.csv{TEMP_MARKER}{pid}-{n}")))
            .collect();
        for link in &links {
            std::os::unix::fs::symlink(&victim, link).expect("symlink");
        }
        write_atomic(&path, b"mode,agents\n").expect("a free name is found");
        assert_eq!(std::fs::read(&victim).expect("read"), b"precious");
        assert_eq!(std::fs::read(&path).expect("read"), b"mode,agents\n");
        // Links are not ours to remove, even with the pattern.
        assert!(links.iter().all(|l| l.symlink_metadata().is_ok()));
    }

    #[test]
    fn probing_a_folder_leaves_nothing_behind() {
        let dir = tempfile::tempdir().expect("temp dir");
        check_writable_dir(dir.path()).expect("writable");
        assert_eq!(names_in(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn concurrent_writers_to_one_folder_never_mix_contents() {
        let dir = tempfile::tempdir().expect("temp dir");
        let csv = dir.path().join("bench.csv");
        let png = dir.path().join("bench.png");
        let csv_text = b"mode,agents\n".repeat(20_000);
        let png_bytes = vec![0x89u8; 300_000];
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..10 {
                        write_atomic(&csv, &csv_text).expect("csv");
                        write_atomic(&png, &png_bytes).expect("png");
                    }
                });
            }
        });
        assert_eq!(std::fs::read(&csv).expect("csv"), csv_text);
        assert_eq!(std::fs::read(&png).expect("png"), png_bytes);
        assert_eq!(names_in(dir.path()), ["bench.csv", "bench.png"]);
    }

    #[test]
    fn temporaries_of_killed_runs_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pid = std::process::id();
        // No process can have this id (Linux caps ids at 2^22).
        let dead = dir
            .path()
            .join(format!(".a.vat.exr{TEMP_MARKER}4000000000-0"));
        let old = dir
            .path()
            .join(format!(".b.vat.json{TEMP_MARKER}{pid}-999999999"));
        let fresh_live = dir
            .path()
            .join(format!(".c.png{TEMP_MARKER}{pid}-999999998"));
        let unrelated = dir.path().join(".notes.throng-tmp-x");
        for p in [&dead, &old, &fresh_live, &unrelated] {
            std::fs::write(p, b"leftover").expect("write");
        }
        let two_minutes_ago = SystemTime::now() - Duration::from_secs(120);
        File::options()
            .write(true)
            .open(&old)
            .and_then(|f| f.set_modified(two_minutes_ago))
            .expect("age the file");
        write_atomic(&dir.path().join("bench.csv"), b"x").expect("write");
        assert_eq!(
            names_in(dir.path()),
            [
                ".c.png.throng-tmp-".to_string() + &format!("{pid}-999999998"),
                ".notes.throng-tmp-x".to_string(),
                "bench.csv".to_string(),
            ]
        );
    }

    #[test]
    fn temporary_names_are_recognised_exactly() {
        assert_eq!(temp_owner(".bench.csv.throng-tmp-12-3"), Some(12));
        assert_eq!(temp_owner("bench.csv.throng-tmp-12-3"), None);
        assert_eq!(temp_owner(".bench.csv.throng-tmp-12-"), None);
        assert_eq!(temp_owner(".bench.csv.throng-tmp-x-3"), None);
        assert_eq!(temp_owner(".bench.csv.tmp"), None);
    }
}
