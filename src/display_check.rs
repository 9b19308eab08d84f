//! Whether a window can open at all, asked before the window library tries: without a display
//! miniquad panics with a backtrace; this turns that into one line.
//!
//! On Linux the window library opens the X display named by `DISPLAY` through libX11, loaded at
//! run time; this does the same, so it fails exactly when the window would. Elsewhere there is
//! nothing to ask beforehand.

/// What to tell the user after any display problem.
#[cfg(target_os = "linux")]
const HINT: &str = "run under xvfb-run or set DISPLAY";

/// `Err` with one line ("no display: ...") when no window can be opened.
pub fn check_display() -> Result<(), String> {
    check_display_named(std::env::var_os("DISPLAY"))
}

#[cfg(target_os = "linux")]
fn check_display_named(display: Option<std::ffi::OsString>) -> Result<(), String> {
    let name = display
        .filter(|d| !d.is_empty())
        .ok_or_else(|| format!("no display: DISPLAY is not set ({HINT})"))?;
    let name = name.to_string_lossy();
    x11::can_open_default_display()
        .map_err(|why| format!("no display: cannot open the X display \"{name}\": {why} ({HINT})"))
}

#[cfg(not(target_os = "linux"))]
fn check_display_named(_display: Option<std::ffi::OsString>) -> Result<(), String> {
    Ok(())
}

#[cfg(target_os = "linux")]
mod x11 {
    use std::ffi::{c_char, c_void, CStr};

    type OpenDisplay = unsafe extern "C" fn(*const c_char) -> *mut c_void;

    /// The names the window library itself tries, in its order.
    const LIBRARIES: [&CStr; 2] = [c"libX11.so", c"libX11.so.6"];

    /// Opens the display named by `DISPLAY` and keeps the connection until the process ends:
    /// closing it could leave the server without clients, and an X server started without
    /// `-noreset` (as xvfb-run starts Xvfb) then resets and refuses the window's own connection
    /// a moment later.
    pub fn can_open_default_display() -> Result<(), String> {
        // SAFETY: dlopen/dlsym with valid C strings; the symbol is cast to its documented Xlib
        // signature; the library stays loaded (the window library loads it again).
        unsafe {
            let lib = LIBRARIES
                .iter()
                .map(|n| libc::dlopen(n.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL))
                .find(|h| !h.is_null())
                .ok_or_else(|| "libX11 is not installed".to_string())?;
            let open = libc::dlsym(lib, c"XOpenDisplay".as_ptr());
            if open.is_null() {
                return Err("libX11 has no XOpenDisplay".into());
            }
            let open: OpenDisplay = std::mem::transmute::<*mut c_void, OpenDisplay>(open);
            if open(std::ptr::null()).is_null() {
                return Err("no X server answers there".into());
            }
            Ok(())
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn an_unset_or_empty_display_is_one_line() {
        for display in [None, Some("".into())] {
            assert_eq!(
                check_display_named(display).unwrap_err(),
                "no display: DISPLAY is not set (run under xvfb-run or set DISPLAY)"
            );
        }
    }
}
