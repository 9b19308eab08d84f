/// Advances a version counter, skipping 0: 0 means "never evaluated / cleared" to consumers,
/// so a wrap-around must not make a live object look fresh.
#[inline]
pub fn next_version(v: u64) -> u64 {
    match v.wrapping_add(1) {
        0 => 1,
        n => n,
    }
}
