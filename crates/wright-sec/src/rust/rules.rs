//! The Rust rule table: each pattern's category, what it means and what to do instead, and the
//! confidences the checker starts from (jarvis-sec's `rust_checker`, A7.2, made finer).

/// One Rust rule: what a finding of this pattern says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RustRule {
    /// The pattern findings carry (and the fixtures' directory name).
    pub pattern: &'static str,
    pub category: &'static str,
    pub description: &'static str,
    pub suggestion: &'static str,
}

/// An `unsafe` block or `unsafe fn` body.
pub const UNSAFE_BLOCK: RustRule = RustRule {
    pattern: "unsafe_block",
    category: "unsafe_usage",
    description: "unsafe code: the compiler no longer checks memory, aliasing and lifetime safety here",
    suggestion: "keep the unsafe region minimal and write a `// SAFETY:` comment above it that says why each invariant holds",
};

/// A raw pointer dereferenced inside unsafe code.
pub const RAW_POINTER_DEREF: RustRule = RustRule {
    pattern: "raw_pointer_deref",
    category: "unsafe_usage",
    description: "a raw pointer is dereferenced: undefined behaviour if it is null, dangling or misaligned",
    suggestion: "check the pointer (`is_null()`, `NonNull::new`, `as_ref()`) and document its validity, or use a reference",
};

/// A raw pointer type (`*const T`, `*mut T`) outside an `extern` block.
pub const RAW_POINTER: RustRule = RustRule {
    pattern: "raw_pointer",
    category: "unsafe_usage",
    description: "a raw pointer (`*const`/`*mut`) escapes the borrow checker's lifetime and aliasing checks",
    suggestion: "prefer references, `Box`, `NonNull` or slices; where a raw pointer is needed, keep it private and document who owns what it points to",
};

/// `mem::transmute` / `transmute_copy`.
pub const TRANSMUTE: RustRule = RustRule {
    pattern: "transmute",
    category: "unsafe_usage",
    description: "`mem::transmute` reinterprets bits as another type: undefined behaviour on a size, layout, alignment or validity mismatch",
    suggestion: "use a safe conversion (`from_bits`, `to_ne_bytes`, `from_le_bytes`, `as`, `TryFrom`, bytemuck) or document the layout guarantee",
};

/// `MaybeUninit::assume_init*`, `mem::uninitialized`, `mem::zeroed`.
pub const MAYBE_UNINIT: RustRule = RustRule {
    pattern: "maybe_uninit",
    category: "unsafe_usage",
    description: "memory is assumed initialised: undefined behaviour if it was not fully written first",
    suggestion: "write the value first (`MaybeUninit::write`) and say so in a `// SAFETY:` comment, or build the value safely",
};

/// `.unwrap()`.
pub const UNWRAP: RustRule = RustRule {
    pattern: "unwrap",
    category: "error_handling",
    description: "`unwrap()` panics on `None`/`Err`: a failure becomes a crash",
    suggestion: "propagate the error with `?`, handle it with `match`/`if let`, or use `unwrap_or`/`unwrap_or_else`",
};

/// `.expect("…")`.
pub const EXPECT: RustRule = RustRule {
    pattern: "expect",
    category: "error_handling",
    description: "`expect()` panics on `None`/`Err`: a failure becomes a crash",
    suggestion: "propagate the error with `?` or handle it; keep `expect` for invariants that truly cannot fail",
};

/// `extern "C"` blocks and functions.
pub const EXTERN_C: RustRule = RustRule {
    pattern: "extern_c",
    category: "ffi",
    description: "an FFI boundary: pointers, lengths, lifetimes and thread safety across it are unchecked",
    suggestion: "validate every pointer and length that crosses the boundary (null, alignment, size) and wrap it in a safe API",
};

/// `unsafe impl Send` / `unsafe impl Sync`.
pub const UNSAFE_IMPL_SEND_SYNC: RustRule = RustRule {
    pattern: "unsafe_impl_send_sync",
    category: "concurrency",
    description: "a hand-written `unsafe impl Send/Sync` overrides the compiler's thread-safety analysis: a data race if the type is not in fact thread-safe",
    suggestion: "let the compiler derive Send/Sync from the fields (wrap shared state in `Mutex`/atomics); if the impl is needed, write a `// SAFETY:` comment proving it",
};

/// A `Result` thrown away with `let _ = …`, `_ = …` or a bare `.ok();`.
pub const IGNORED_RESULT: RustRule = RustRule {
    pattern: "ignored_result",
    category: "error_handling",
    description: "a result is discarded: if the call fails, nothing notices",
    suggestion: "propagate the error with `?`, or handle or log it; if ignoring it is right, say why in a comment",
};

/// `mem::forget`.
pub const MEM_FORGET: RustRule = RustRule {
    pattern: "mem_forget",
    category: "resource_management",
    description: "`mem::forget` skips the destructor: the memory, file, lock or thread it owns is never released",
    suggestion: "drop the value, or transfer ownership explicitly (`into_raw`, `ManuallyDrop` with a documented owner)",
};

/// Every Rust rule, in the order reports list them.
pub const RULES: &[RustRule] = &[
    UNSAFE_BLOCK,
    RAW_POINTER_DEREF,
    RAW_POINTER,
    TRANSMUTE,
    MAYBE_UNINIT,
    UNWRAP,
    EXPECT,
    EXTERN_C,
    UNSAFE_IMPL_SEND_SYNC,
    IGNORED_RESULT,
    MEM_FORGET,
];

// Confidences (severity: ≥ 0.8 high, ≥ 0.6 medium, else low).

/// An unsafe block with nothing in it the checker knows to be dangerous (FFI calls, statics).
pub const UNSAFE_BLOCK_PLAIN: f32 = 0.6;
/// An unsafe block that dereferences a raw pointer, transmutes, assumes memory initialised or
/// calls an unchecked operation (`get_unchecked`, `from_raw_parts`, `set_len`, …).
pub const UNSAFE_BLOCK_DANGEROUS: f32 = 0.85;
/// The dereference of something known to be a raw pointer (declared `*const`/`*mut`, a cast
/// to one, pointer arithmetic).
pub const DEREF_KNOWN_RAW: f32 = 0.8;
/// The dereference of a null pointer made on the spot (`*ptr::null()`).
pub const DEREF_NULL: f32 = 0.95;
/// A `*x` inside unsafe code where the checker cannot tell `x` is a raw pointer.
pub const DEREF_UNKNOWN: f32 = 0.5;
/// Taken off a dereference when the pointer was checked for null earlier in the function.
pub const NULL_CHECKED_DISCOUNT: f32 = 0.25;
/// A raw pointer type: informational.
pub const RAW_POINTER_TYPE: f32 = 0.35;
pub const TRANSMUTE_CALL: f32 = 0.85;
/// `assume_init` on a `MaybeUninit` written earlier or not known.
pub const ASSUME_INIT: f32 = 0.7;
/// `MaybeUninit::uninit().assume_init()` in one expression, `mem::uninitialized()`.
pub const ASSUME_INIT_UNWRITTEN: f32 = 0.9;
/// `mem::zeroed()`: valid for plain data, undefined behaviour for references and `NonNull`.
pub const ZEROED: f32 = 0.45;
/// Taken off `assume_init` when the value was written (`.write(…)`, `.as_mut_ptr()`) before.
pub const WRITTEN_DISCOUNT: f32 = 0.2;
pub const UNWRAP_CALL: f32 = 0.45;
pub const EXPECT_CALL: f32 = 0.4;
/// `lock().unwrap()` and the like: panicking on a poisoned lock is the common, deliberate idiom.
pub const UNWRAP_POISON: f32 = 0.25;
/// Taken off an unwrap whose receiver was tested (`is_some()`, `is_ok()`) earlier in the function.
pub const TESTED_DISCOUNT: f32 = 0.2;
/// An `extern` block: the declarations alone.
pub const EXTERN_BLOCK: f32 = 0.5;
/// An `extern "C" fn` that takes no raw pointer, or checks each one it uses.
pub const EXTERN_FN: f32 = 0.45;
/// An `extern "C" fn` that uses a raw pointer parameter without checking it for null.
pub const EXTERN_FN_UNCHECKED: f32 = 0.85;
/// The same in an `unsafe extern "C" fn` (a callback handed to C, typically): its contract
/// says the pointers are valid, so the check may be the caller's.
pub const UNSAFE_EXTERN_FN_UNCHECKED: f32 = 0.65;
pub const UNSAFE_IMPL: f32 = 0.8;
/// `let _ = call()` / `call().ok();`: often deliberate.
pub const IGNORED_CALL: f32 = 0.45;
/// The same, of a call whose failure loses data or leaves the file system half done.
pub const IGNORED_IO_CALL: f32 = 0.65;
pub const FORGET_CALL: f32 = 0.6;
/// Taken off when a `// SAFETY:` comment justifies the unsafe code.
pub const SAFETY_DISCOUNT: f32 = 0.3;
/// Taken off in test code (`#[cfg(test)]`, `#[test]`, `tests/`, `benches/`, `examples/`).
pub const TEST_DISCOUNT: f32 = 0.3;
/// Taken off an ignored result or a `mem::forget` with a comment next to it saying why.
pub const EXPLAINED_DISCOUNT: f32 = 0.15;
/// No finding goes below this.
pub const MIN_CONFIDENCE: f32 = 0.05;

/// Calls whose result, thrown away, loses data or leaves things half done.
pub const IO_CALLS: &[&str] = &[
    "write",
    "write_all",
    "write_fmt",
    "flush",
    "sync_all",
    "sync_data",
    "set_len",
    "rename",
    "remove_file",
    "remove_dir",
    "remove_dir_all",
    "create_dir",
    "create_dir_all",
    "set_permissions",
    "copy",
    "hard_link",
    "persist",
    "commit",
    "send_to",
    "execute",
];

/// Calls that are undefined behaviour when their precondition fails; an unsafe block making
/// one is dangerous.
pub const UNCHECKED_CALLS: &[&str] = &[
    "from_raw_parts",
    "from_raw_parts_mut",
    "get_unchecked",
    "get_unchecked_mut",
    "set_len",
    "copy_nonoverlapping",
    "from_utf8_unchecked",
    "from_raw",
    "from_ptr",
    "unwrap_unchecked",
    "unreachable_unchecked",
    "offset",
    "add",
    "sub",
    "read",
    "read_unaligned",
    "write_unaligned",
    "write_bytes",
    "assume_init",
];

/// Methods that give a raw pointer: a `*` on their result dereferences one.
pub const POINTER_METHODS: &[&str] = &[
    "add",
    "sub",
    "offset",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_offset",
    "byte_add",
    "byte_sub",
    "byte_offset",
    "as_ptr",
    "as_mut_ptr",
    "cast",
    "cast_mut",
    "cast_const",
    "into_raw",
];
