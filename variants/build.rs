//! Selects the variant a build holds (see `src/select.rs`): with
//! `INLINELAB_VARIANT=cast6::never`, the cfgs `inlinelab_one`,
//! `inlinelab_cipher = "cast6"` and `inlinelab_variant = "cast6::never"`,
//! which `#[codegen::variants]` gates every module and variant on.

include!("src/select.rs");

fn main() {
    println!("cargo::rerun-if-env-changed={SELECT_ENV}");
    println!("cargo::rustc-check-cfg=cfg(inlinelab_one)");
    println!("cargo::rustc-check-cfg=cfg(inlinelab_cipher, values(any()))");
    println!("cargo::rustc-check-cfg=cfg(inlinelab_variant, values(any()))");
    let Ok(value) = std::env::var(SELECT_ENV) else {
        return;
    };
    if !is_selection(&value) {
        eprintln!(
            "{SELECT_ENV}=`{value}`: expected `none` or `cipher::variant`, e.g. cast6::never"
        );
        std::process::exit(1);
    }
    println!("cargo::rustc-cfg=inlinelab_one");
    if let Some((cipher, _)) = value.split_once("::") {
        println!("cargo::rustc-cfg=inlinelab_cipher=\"{cipher}\"");
        println!("cargo::rustc-cfg=inlinelab_variant=\"{value}\"");
    }
}
