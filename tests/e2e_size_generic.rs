//! End to end: generic size parameters (manual §6.7). A function that no call in its module
//! specialises is exported with its size parameters taken from the arguments at run time
//! (checked to agree); called with arrays whose types fix them, it is specialised and its
//! `{!parallel for}` loop becomes a kernel. Results against plain Rust; .ci/run also runs
//! this file with every launch on interpreted PTX.

use quasar::Array;

mod runtime {
    quasar::quasar!(file = "tests/common/size_generic.q");
}

mod specialised {
    quasar::quasar! { r#"
function img_out = colortransform[N](C : mat(N,N), img : cube(:, :, N))
    img_out = zeros(size(img,0),size(img,1),N)
    {!parallel for}
    for m=0..size(img,0)-1
        for n=0..size(img,1)-1
            img_out[m,n,:] = (C * squeeze(img[m,n,:]))
        endfor
    endfor
endfunction

function y = to_yuv(img : cube(:, :, 3))
    C = [[0.299, 0.587, 0.114], [-0.14713, -0.28886, 0.436], [0.615, -0.51499, -0.10001]]
    y = colortransform(C, img)
endfunction
"# }
}

/// `out[m, n, k] = sum_j c[k, j] * img[m, n, j]`.
fn transform(c: &[f32], img: &[f32], h: usize, w: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; h * w * n];
    for p in 0..h * w {
        for k in 0..n {
            out[p * n + k] = (0..n).map(|j| c[k * n + j] * img[p * n + j]).sum();
        }
    }
    out
}

fn close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "[{i}]: {a} vs {b}");
    }
}

#[test]
fn the_exported_color_transform_takes_the_channel_count_at_run_time() {
    let (h, w) = (3usize, 5usize);
    for n in [2usize, 3, 4] {
        let c = Array::from_fn(&[n, n], |i| (i % 5) as f32 * 0.5 - 1.0).unwrap();
        let img = Array::from_fn(&[h, w, n], |i| ((i * 7) % 13) as f32 * 0.25).unwrap();
        let y = runtime::colortransform(&c, &img).unwrap();
        assert_eq!(y.shape(), &[h, w, n]);
        let want = transform(&c.to_vec().unwrap(), &img.to_vec().unwrap(), h, w, n);
        close(&y.to_vec().unwrap(), &want);
    }
}

#[test]
fn sizes_that_disagree_on_the_parameter_are_a_run_time_error() {
    let c = Array::from_fn(&[3, 3], |i| i as f32).unwrap();
    let img = Array::from_fn(&[2, 2, 4], |i| i as f32).unwrap();
    let e = runtime::colortransform(&c, &img).unwrap_err().to_string();
    assert!(
        e.contains(
            "the size parameter `N` is dimension 0 of `C`, which differs from dimension 2 of `img`"
        ),
        "{e}"
    );
}

#[test]
fn a_size_parameter_is_a_value_a_nested_kernel_reads() {
    let v: Vec<f32> = vec![1.0, -2.0, 4.5, 0.25, 3.0];
    let (n, y) = runtime::running_sums(&Array::from_vec(&[5], v.clone()).unwrap()).unwrap();
    assert_eq!(n, 5);
    let want: Vec<f32> = (0..5).map(|p| v[..=p].iter().sum()).collect();
    close(&y.to_vec().unwrap(), &want);
}

#[test]
fn a_call_with_three_channels_specialises_the_transform() {
    let (h, w) = (4usize, 6usize);
    let img = Array::from_fn(&[h, w, 3], |i| ((i * 5) % 11) as f32 / 10.0).unwrap();
    let c = [0.299f32, 0.587, 0.114, -0.14713, -0.28886, 0.436, 0.615, -0.51499, -0.10001];
    let y = specialised::to_yuv(&img).unwrap();
    close(&y.to_vec().unwrap(), &transform(&c, &img.to_vec().unwrap(), h, w, 3));
}
