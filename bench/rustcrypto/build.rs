// Records, for the benchmark's description of the row, what actually built
// this library: the rustc version, the optimisation level, and the aes /
// aes-soft versions the offline resolution picked (from Cargo.lock).
use std::{env, fs, path::Path, process::Command};

fn locked_version(lock: &str, name: &str) -> String {
    let want = format!("name = \"{}\"", name);
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == want {
            if let Some(v) = lines.next() {
                if let Some(v) = v.trim().strip_prefix("version = ") {
                    return v.trim_matches('"').to_string();
                }
            }
        }
    }
    "?".to_string()
}

fn main() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let ver = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc (version unknown)".into());
    let opt = env::var("OPT_LEVEL").unwrap_or_else(|_| "?".into());
    let dir = env::var("CARGO_MANIFEST_DIR").unwrap();
    let lock_path = Path::new(&dir).join("Cargo.lock");
    let lock = fs::read_to_string(&lock_path).unwrap_or_default();
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-env=AESGEN_RC_RUSTC={}", ver);
    println!("cargo:rustc-env=AESGEN_RC_OPT_LEVEL={}", opt);
    println!("cargo:rustc-env=AESGEN_RC_AES={}", locked_version(&lock, "aes"));
    println!("cargo:rustc-env=AESGEN_RC_AES_SOFT={}", locked_version(&lock, "aes-soft"));
}
