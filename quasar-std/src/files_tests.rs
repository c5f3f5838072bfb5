use super::*;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn save_writes_the_documented_layout() {
    let d = tmp();
    let p = d.path().join("out.qd");
    let a = Array::from_vec(&[1, 2], vec![1.5f32, -2.0]).unwrap();
    save(&p, &[&a, &7i32, &"hi".to_string()]).unwrap();
    // The bytes, written out by hand from the format in the module documentation.
    let mut expect = b"QSAVE\0".to_vec();
    expect.extend_from_slice(&1u16.to_le_bytes());
    expect.extend_from_slice(&3u32.to_le_bytes());
    expect.extend_from_slice(&[0, 0]);
    expect.extend_from_slice(&2u32.to_le_bytes());
    expect.extend_from_slice(&1u64.to_le_bytes());
    expect.extend_from_slice(&2u64.to_le_bytes());
    expect.extend_from_slice(&1.5f32.to_le_bytes());
    expect.extend_from_slice(&(-2.0f32).to_le_bytes());
    expect.extend_from_slice(&[0, 4]);
    expect.extend_from_slice(&0u32.to_le_bytes());
    expect.extend_from_slice(&7i32.to_le_bytes());
    expect.push(1);
    expect.extend_from_slice(&2u64.to_le_bytes());
    expect.extend_from_slice(b"hi");
    assert_eq!(std::fs::read(&p).unwrap(), expect);
}

#[test]
fn load_returns_what_save_wrote() {
    let d = tmp();
    let p = d.path().join("vals.qd");
    let m = Array::from_vec(&[2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let c =
        Array::from_vec(&[2], vec![Complex::new(1.0f32, 2.0), Complex::new(-1.0, 0.5)]).unwrap();
    let u = Array::from_vec(&[4], vec![0u8, 1, 254, 255]).unwrap();
    save(&p, &[&m, &c, &u, &"name", &-3i64]).unwrap();
    let v = load(&p).unwrap();
    assert_eq!(v.len(), 5);
    match &v[0] {
        Saved::F64(a) => {
            assert_eq!((a.shape(), a.to_vec().unwrap()), (&[2, 3][..], m.to_vec().unwrap()))
        }
        other => panic!("{other:?}"),
    }
    match &v[1] {
        Saved::C32(a) => assert_eq!(a.to_vec().unwrap(), c.to_vec().unwrap()),
        other => panic!("{other:?}"),
    }
    match &v[2] {
        Saved::U8(a) => assert_eq!(a.to_vec().unwrap(), vec![0, 1, 254, 255]),
        other => panic!("{other:?}"),
    }
    assert!(matches!(&v[3], Saved::Str(s) if s == "name"));
    match &v[4] {
        Saved::I64(a) => assert_eq!((a.ndim(), a.to_vec().unwrap()), (0, vec![-3])),
        other => panic!("{other:?}"),
    }
}

#[test]
fn corrupt_files_are_errors_naming_load() {
    let d = tmp();
    let p = d.path().join("bad.qd");
    std::fs::write(&p, b"hello").unwrap();
    let e = load(&p).unwrap_err().to_string();
    assert!(e.starts_with("`load`: ") && e.contains("does not start with QSAVE"), "{e}");
    // A header that claims a huge array in a short file.
    let mut b = b"QSAVE\0".to_vec();
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&[0, 1]);
    b.extend_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&u64::MAX.to_le_bytes());
    b.extend_from_slice(&4u64.to_le_bytes());
    std::fs::write(&p, &b).unwrap();
    assert!(load(&p).unwrap_err().to_string().contains("too large"));
    b.truncate(b.len() - 16);
    b.extend_from_slice(&3u64.to_le_bytes());
    b.extend_from_slice(&3u64.to_le_bytes());
    std::fs::write(&p, &b).unwrap();
    assert!(load(&p).unwrap_err().to_string().contains("truncated"));
}

#[test]
fn fwrite_and_fread_use_little_endian_element_types() {
    let d = tmp();
    let p = d.path().join("raw.bin");
    let name = p.to_str().unwrap();
    let mut f = fopen(name, "wb").unwrap();
    f.fwrite(&[1.0, -2.5, 3.0], "float32").unwrap();
    f.fwrite(&[-1.0, 300.0], "int16").unwrap();
    f.fclose().unwrap();
    let mut expect = Vec::new();
    for v in [1.0f32, -2.5, 3.0] {
        expect.extend_from_slice(&v.to_le_bytes());
    }
    expect.extend_from_slice(&(-1i16).to_le_bytes());
    expect.extend_from_slice(&300i16.to_le_bytes());
    assert_eq!(std::fs::read(&p).unwrap(), expect);
    let mut f = fopen(name, "rb").unwrap();
    let a = f.fread(&[1, 3], "float32", |v| v as f32).unwrap();
    assert_eq!((a.shape(), a.to_vec().unwrap()), (&[1, 3][..], vec![1.0, -2.5, 3.0]));
    let b = f.fread(&[2], "int16", |v| v).unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![-1.0, 300.0]);
    let e = f.fread(&[1], "int16", |v| v).unwrap_err();
    assert!(e.to_string().contains("raw.bin"), "{e}");
    let e = f.fread(&[1], "float16", |v| v).unwrap_err().to_string();
    assert!(e.starts_with("`fread`: unknown element type \"float16\""), "{e}");
}

#[test]
fn fgets_reads_lines_and_modes_are_checked() {
    let d = tmp();
    let p = d.path().join("t.txt");
    std::fs::write(&p, "first\nsecond").unwrap();
    let mut f = fopen(p.to_str().unwrap(), "r").unwrap();
    assert_eq!(f.fgets().unwrap(), "first\n");
    assert_eq!(f.fgets().unwrap(), "second");
    assert_eq!(f.fgets().unwrap(), "");
    assert!(f.fwrite(&[1.0], "uint8").unwrap_err().to_string().contains("not open for writing"));
    let e = fopen("x", "z").unwrap_err().to_string();
    assert!(e.starts_with("`fopen`: unknown mode \"z\""), "{e}");
    assert!(fopen(d.path().join("missing").to_str().unwrap(), "r").is_err());
}

#[test]
fn dir_lists_matching_files_sorted() {
    let d = tmp();
    for n in ["b.png", "a.png", "c.txt", "a2.PNG"] {
        std::fs::write(d.path().join(n), "").unwrap();
    }
    let pat = d.path().join("*.png");
    assert_eq!(dir(pat.to_str().unwrap()).unwrap(), vec!["a.png", "a2.PNG", "b.png"]);
    let pat = d.path().join("?.png");
    assert_eq!(dir(pat.to_str().unwrap()).unwrap(), vec!["a.png", "b.png"]);
    assert_eq!(dir(d.path().to_str().unwrap()).unwrap().len(), 4);
    assert!(dir("/nonexistent-dir-for-quasar/*.png").is_err());
}
