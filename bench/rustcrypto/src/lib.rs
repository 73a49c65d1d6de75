//! aesgen-bench peer: RustCrypto `aes` 0.6 behind a small C ABI (see
//! ../rustcrypto_peer.h). ECB only, in place, whole 16-byte blocks.
//!
//! Whole 8-block groups go through `BlockCipher::encrypt_blocks` /
//! `decrypt_blocks` on a `ParBlocks` (aes-soft runs those as two 4-block
//! fixslice batches); a tail of fewer than 8 blocks goes one block per
//! `encrypt_block` / `decrypt_block` call, exactly as the crate's own
//! `encrypt_slice` / `decrypt_slice` do.
//!
//! Built without `target-feature=+aes`, `aes` 0.6 re-exports `aes-soft`
//! (Debian's librust-aes-dev has the aesni dependency patched out, so there
//! it is aes-soft unconditionally).

use aes::cipher::generic_array::typenum::{U16, U8};
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockCipher, NewBlockCipher};
use aes::{Aes128, Aes192, Aes256};
use std::os::raw::{c_char, c_int};

type Block = GenericArray<u8, U16>;
type Par = GenericArray<Block, U8>;

// The in-place casts below rely on these layouts (GenericArray is
// repr(transparent) over a plain array of bytes).
const _: () = assert!(std::mem::size_of::<Block>() == 16 && std::mem::align_of::<Block>() == 1);
const _: () = assert!(std::mem::size_of::<Par>() == 128 && std::mem::align_of::<Par>() == 1);

enum Cipher {
    A128(Aes128),
    A192(Aes192),
    A256(Aes256),
}

/// Opaque handle given to C.
pub struct AesgenPeerRc {
    c: Cipher,
}

fn ecb<C: BlockCipher<BlockSize = U16, ParBlocks = U8>>(c: &C, buf: &mut [u8], decrypt: bool) {
    let mut groups = buf.chunks_exact_mut(128);
    for g in &mut groups {
        // SAFETY: g is exactly 128 bytes, Par is 128 bytes with alignment 1.
        let par: &mut Par = unsafe { &mut *(g.as_mut_ptr() as *mut Par) };
        if decrypt {
            c.decrypt_blocks(par);
        } else {
            c.encrypt_blocks(par);
        }
    }
    for b in groups.into_remainder().chunks_exact_mut(16) {
        let blk: &mut Block = GenericArray::from_mut_slice(b);
        if decrypt {
            c.decrypt_block(blk);
        } else {
            c.encrypt_block(blk);
        }
    }
}

/// Key set-up for a 16, 24 or 32-byte key; NULL for any other length.
///
/// # Safety
/// `key` must point to `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn aesgen_peer_rc_init(key: *const u8, key_len: usize) -> *mut AesgenPeerRc {
    if key.is_null() {
        return std::ptr::null_mut();
    }
    let k = std::slice::from_raw_parts(key, key_len);
    let c = match key_len {
        16 => Cipher::A128(Aes128::new(GenericArray::from_slice(k))),
        24 => Cipher::A192(Aes192::new(GenericArray::from_slice(k))),
        32 => Cipher::A256(Aes256::new(GenericArray::from_slice(k))),
        _ => return std::ptr::null_mut(),
    };
    Box::into_raw(Box::new(AesgenPeerRc { c }))
}

unsafe fn run(h: *const AesgenPeerRc, buf: *mut u8, nblocks: usize, decrypt: bool) -> c_int {
    if h.is_null() {
        return -1;
    }
    if nblocks == 0 {
        return 0;
    }
    let len = match nblocks.checked_mul(16) {
        Some(l) if !buf.is_null() => l,
        _ => return -1,
    };
    let b = std::slice::from_raw_parts_mut(buf, len);
    match &(*h).c {
        Cipher::A128(c) => ecb(c, b, decrypt),
        Cipher::A192(c) => ecb(c, b, decrypt),
        Cipher::A256(c) => ecb(c, b, decrypt),
    }
    0
}

/// ECB-encrypts `nblocks` 16-byte blocks of `buf` in place; 0 on success.
///
/// # Safety
/// `h` from `aesgen_peer_rc_init`, `buf` valid for `16 * nblocks` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesgen_peer_rc_ecb_encrypt(
    h: *const AesgenPeerRc,
    buf: *mut u8,
    nblocks: usize,
) -> c_int {
    run(h, buf, nblocks, false)
}

/// ECB-decrypts `nblocks` 16-byte blocks of `buf` in place; 0 on success.
///
/// # Safety
/// As for `aesgen_peer_rc_ecb_encrypt`.
#[no_mangle]
pub unsafe extern "C" fn aesgen_peer_rc_ecb_decrypt(
    h: *const AesgenPeerRc,
    buf: *mut u8,
    nblocks: usize,
) -> c_int {
    run(h, buf, nblocks, true)
}

/// Frees a handle (NULL is fine).
///
/// # Safety
/// `h` from `aesgen_peer_rc_init`, not freed before.
#[no_mangle]
pub unsafe extern "C" fn aesgen_peer_rc_free(h: *mut AesgenPeerRc) {
    if !h.is_null() {
        drop(Box::from_raw(h));
    }
}

/// 1 if this library was compiled with the `aes` target feature (then `aes`
/// 0.6 would use AES-NI instead of the soft backend), else 0.
#[no_mangle]
pub extern "C" fn aesgen_peer_rc_target_aes() -> c_int {
    cfg!(target_feature = "aes") as c_int
}

/// Which aes-soft slicing this build runs: 64 (fixslice64) or 32 (fixslice32).
#[no_mangle]
pub extern "C" fn aesgen_peer_rc_fixslice_bits() -> c_int {
    if cfg!(target_pointer_width = "64") {
        64
    } else {
        32
    }
}

static INFO: &str = concat!(
    "aes ",
    env!("AESGEN_RC_AES"),
    " + aes-soft ",
    env!("AESGEN_RC_AES_SOFT"),
    "; ",
    env!("AESGEN_RC_RUSTC"),
    ", opt-level ",
    env!("AESGEN_RC_OPT_LEVEL"),
    "\0"
);

/// What built this library: "aes X + aes-soft Y; rustc Z, opt-level N".
#[no_mangle]
pub extern "C" fn aesgen_peer_rc_info() -> *const c_char {
    INFO.as_ptr() as *const c_char
}
