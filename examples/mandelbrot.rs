//! A small example: a 2-D kernel with a `while` loop per pixel and a kernel output that
//! counts the points inside the set, saved as a PNG.
//!
//! ```text
//! cargo run --release --example mandelbrot [OUTPUT.png]
//! ```

pub(crate) mod q {
    quasar::quasar! { r#"
function [inside : int] = __kernel__ mandel_kernel(img : cube, max_iter : int, pos : ivec2)
    m = size(img, 0)
    n = size(img, 1)
    cr = -2.2 + 3.2 * pos[1] / n
    ci = -1.2 + 2.4 * pos[0] / m
    zr = 0.0
    zi = 0.0
    k = 0
    while k < max_iter && zr * zr + zi * zi < 4
        t = zr * zr - zi * zi + cr
        zi = 2 * zr * zi + ci
        zr = t
        k += 1
    endwhile
    v = 255 * sqrt(k / max_iter)
    img[pos[0], pos[1], 0] = v
    img[pos[0], pos[1], 1] = 0.5 * v
    img[pos[0], pos[1], 2] = 255 - v
    if k == max_iter
        inside += 1
    endif
endfunction

function [img, inside] = mandelbrot(m : int, n : int, max_iter : int)
    img = zeros(m, n, 3)
    inside = parallel_do([m, n], img, max_iter, mandel_kernel)
endfunction
"# }
}

fn main() -> quasar::Result<()> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "mandelbrot.png".into());
    let t = std::time::Instant::now();
    let (img, inside) = q::mandelbrot(600, 900, 200)?;
    println!(
        "600 x 900 pixels in {:.1} ms, {inside} inside the set",
        t.elapsed().as_secs_f64() * 1e3
    );
    quasar::imwrite(&out, &img)?;
    println!("saved {out}");
    Ok(())
}
