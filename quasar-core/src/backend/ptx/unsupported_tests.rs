//! Kernels the PTX back end leaves on the CPU: the warning names the construct and its note
//! says what to write instead, specific to that construct.

use super::tests::ptx;

/// The one warning of `src`: its message and its "instead" note.
fn warning(src: &str) -> (String, String) {
    let out = ptx(src);
    assert!(out.kernels.is_empty(), "{src}");
    assert_eq!(out.diagnostics.len(), 1, "{src}: {:?}", out.diagnostics);
    let d = &out.diagnostics[0];
    assert!(!d.is_error(), "{d:?}");
    let notes: Vec<&str> = d.notes.iter().map(String::as_str).collect();
    assert_eq!(notes[0], "the kernel runs on the CPU, with the same results");
    let instead = notes
        .iter()
        .find_map(|n| n.strip_prefix("instead, to run it on the GPU: "))
        .unwrap_or_else(|| panic!("no alternative in {notes:?}"));
    (d.message.clone(), instead.to_string())
}

#[test]
fn each_construct_gets_its_own_alternative() {
    let cases = [
        (
            "function [] = __kernel__ k(y : vec, pos : int)
                 print pos
             endfunction",
            "`print` is not supported",
            "write the value to an output array and print it in host code",
        ),
        (
            "function [] = __kernel__ k(y : vec, x : vec, pos : int)
                 s = 0.0
                 for v = x
                     s += v
                 endfor
                 y[pos] = s
             endfunction",
            "a `for` loop over an array (not a fixed-size vector) is not supported",
            "loop over the indices (`for i = 0..numel(x)-1`) and read `x[i]`",
        ),
        (
            "function [] = __kernel__ k(y : vec, pos : int)
                 s = \"abc\"
                 y[pos] = 1.0
             endfunction",
            "strings is not supported",
            "use `error`/`assert` with a string literal, or move the text handling to host code",
        ),
        (
            "function y : scalar = __device__ f(x : scalar)
                 if x <= 0
                     y = 0.0
                 else
                     y = f(x - 1.0)
                 endif
             endfunction
             function [] = __kernel__ k(y : vec, pos : int)
                 y[pos] = f(y[pos])
             endfunction",
            // Recursion is type-checked (issue 15); the PTX back end inlines device calls.
            "the recursive call of `f` is not supported",
            "rewrite the recursion as a loop (device functions are inlined, so they cannot call \
             themselves)",
        ),
        (
            "function [] = __kernel__ k(y : vec, pos : int)
                 try
                     y[pos] = 1.0
                 catch
                     y[pos] = 0.0
                 endtry
             endfunction",
            "`try`/`catch` is not supported",
            "check the condition with `if` and report it with `error(\"…\")`",
        ),
    ];
    for (src, what, instead) in cases {
        let (message, note) = warning(src);
        assert!(message.starts_with("kernel `k` is not compiled for NVIDIA GPUs: "), "{message}");
        assert!(message.contains(what), "{message}");
        assert_eq!(note, instead, "{src}");
    }
}

#[test]
fn the_alternative_names_the_function_concerned() {
    let (message, note) = warning(
        "function [] = __kernel__ k(y : vec, s : int, pos : int)
             if s < 0
                 error(\"negative shift \", s)
             endif
             y[pos] = s
         endfunction",
    );
    assert!(message.contains("not a string literal in the message of `error`"), "{message}");
    assert_eq!(
        note,
        "give `error` a string literal message (`error(\"index too large\")`) and report values \
         from host code"
    );
}
