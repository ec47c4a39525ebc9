//! The cost model against FLOPs and bytes computed by hand.

use super::*;

fn call(dims: &str, types: &str, values: &str) -> Call {
    Call::parse(dims, types, values).unwrap()
}

fn flops(name: &str, c: &Call) -> u64 {
    match cost(name, c) {
        Cost::Known(w) => w.flops.unwrap(),
        other => panic!("{name}: {other:?}"),
    }
}

fn bytes(name: &str, c: &Call) -> u64 {
    match cost(name, c) {
        Cost::Known(w) => w.bytes.unwrap(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn gemms() {
    let mm = call("[[64,512],[512,768]]", r#"["float","float"]"#, "");
    // 2·64·512·768, and (64·512 + 512·768 + 64·768)·4 bytes.
    assert_eq!(flops("aten::mm", &mm), 50_331_648);
    assert_eq!(bytes("aten::mm", &mm), (32_768 + 393_216 + 49_152) * 4);
    let addmm = call(
        "[[768],[64,512],[512,768],[],[]]",
        r#"["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"]"#,
        "",
    );
    assert_eq!(flops("aten::addmm", &addmm), 50_331_648);
    assert_eq!(bytes("aten::addmm", &addmm), (32_768 + 393_216 + 49_152) * 2);
    let bmm = call("[[8,64,32],[8,32,64]]", r#"["float","float"]"#, "");
    assert_eq!(flops("aten::bmm", &bmm), 2 * 8 * 64 * 32 * 64);
    let baddbmm = call(
        "[[8,64,64],[8,64,32],[8,32,64],[],[]]",
        r#"["float","float","float","Scalar","Scalar"]"#,
        "",
    );
    assert_eq!(flops("aten::baddbmm", &baddbmm), 2 * 8 * 64 * 32 * 64);
}

#[test]
fn matmul_broadcasts_and_linear_takes_every_row() {
    // [2, 1, 64, 32] × [3, 32, 16]: batch 2·3, 2·6·64·32·16.
    let m = call("[[2,1,64,32],[3,32,16]]", r#"["float","float"]"#, "");
    assert_eq!(flops("aten::matmul", &m), 2 * 6 * 64 * 32 * 16);
    // A vector times a matrix: [32] × [32, 16] = 2·32·16.
    let v = call("[[32],[32,16]]", r#"["float","float"]"#, "");
    assert_eq!(flops("aten::matmul", &v), 2 * 32 * 16);
    // linear([4, 197, 768], [3072, 768]): 2·(4·197)·768·3072.
    let l = call("[[4,197,768],[3072,768],[3072]]", r#"["float","float","float"]"#, "");
    assert_eq!(flops("aten::linear", &l), 2 * 788 * 768 * 3072);
}

#[test]
fn convolutions() {
    // ResNet's stem: [2, 3, 64, 64] * [64, 3, 7, 7], stride 2, padding 3 → [2, 64, 32, 32].
    let c = call(
        "[[2,3,64,64],[64,3,7,7],[],[],[],[],[],[],[]]",
        r#"["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"]"#,
        r#"["","","","[2, 2]","[3, 3]","[1, 1]","False","[0, 0]","1"]"#,
    );
    assert_eq!(flops("aten::convolution", &c), 2 * 2 * 64 * 32 * 32 * 3 * 49);
    let out = 2 * 64 * 32 * 32;
    assert_eq!(
        bytes("aten::convolution", &c),
        (2 * 3 * 64 * 64 + 64 * 3 * 49 + out) * 4
    );
    // Depthwise (groups 32, weight [32, 1, 3, 3]), dilation 2, padding 2: output stays 16×16.
    let dw = call(
        "[[1,32,16,16],[32,1,3,3],[],[],[],[],[]]",
        r#"["float","float","","ScalarList","ScalarList","ScalarList","Scalar"]"#,
        r#"["","","","[1]","[2]","[2]","32"]"#,
    );
    assert_eq!(flops("aten::conv2d", &dw), 2 * 32 * 256 * 9);
    // 1-d and 3-d.
    let c1 = call("[[4,8,100],[16,8,5],[]]", r#"["float","float",""]"#, "");
    assert_eq!(flops("aten::conv1d", &c1), 2 * 4 * 16 * 96 * 8 * 5);
    let c3 = call(
        "[[1,2,8,8,8],[4,2,3,3,3],[]]",
        r#"["float","float",""]"#,
        r#"["","","","[1]","[1]"]"#,
    );
    assert_eq!(flops("aten::conv3d", &c3), 2 * 4 * 512 * 2 * 27);
    // Backward of a 1×1 convolution, both gradients: twice the forward's 2·2·2048·4·512.
    let b = call(
        "[[2,2048,2,2],[2,512,2,2],[2048,512,1,1],[],[],[],[],[],[],[],[]]",
        r#"["float","float","float","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"]"#,
        r#"["","","","[0]","[1, 1]","[0, 0]","[1, 1]","False","[0, 0]","1","[True, True, False]"]"#,
    );
    assert_eq!(flops("aten::convolution_backward", &b), 2 * (2 * 2 * 2048 * 4 * 512));
}

#[test]
fn attention_forward_backward_and_causal() {
    // Efficient attention, [B, L, H, E] = [8, 64, 4, 32]: 2·(8·4)·64·64·(32 + 32).
    let fwd = call(
        "[[8,64,4,32],[8,64,4,32],[8,64,4,32],[],[],[],[],[],[],[],[]]",
        r#"["float","float","float","","","","","","Scalar","Scalar","Scalar"]"#,
        r#"["","","","","","","","","0.","0","True"]"#,
    );
    let f = 2 * 32 * 64 * 64 * 64;
    assert_eq!(flops("aten::_efficient_attention_forward", &fwd), f);
    let causal = call(
        "[[8,4,64,32],[8,4,64,32],[8,4,64,32],[],[],[]]",
        r#"["c10::Half","c10::Half","c10::Half","","Scalar","Scalar"]"#,
        r#"["","","","","0.","True"]"#,
    );
    assert_eq!(flops("aten::scaled_dot_product_attention", &causal), f / 2);
    let bwd = call(
        "[[8,64,4,32],[8,64,4,32],[8,64,4,32],[8,64,4,32],[],[8,64,4,32]]",
        r#"["float","float","float","float","","float"]"#,
        "",
    );
    assert_eq!(flops("aten::_efficient_attention_backward", &bwd), f * 5 / 2);
}

#[test]
fn bytes_moved() {
    let add = call("[[64,512],[512],[]]", r#"["float","float","Scalar"]"#, "");
    // Reads both, writes [64, 512].
    assert_eq!(bytes("aten::add", &add), (32_768 + 512 + 32_768) * 4);
    let copy = call("[[64,512],[64,512],[]]", r#"["c10::BFloat16","float","Scalar"]"#, "");
    assert_eq!(bytes("aten::copy_", &copy), 32_768 * 2 + 32_768 * 4);
    let fill = call("[[512,1000],[]]", r#"["float","Scalar"]"#, r#"["","0"]"#);
    assert_eq!(bytes("aten::fill_", &fill), 512_000 * 4);
    let emb = call("[[30522,128],[8,64]]", r#"["float","long int"]"#, "");
    assert_eq!(bytes("aten::embedding", &emb), 512 * 8 + 2 * 512 * 128 * 4);
    let sum = call("[[64,512],[],[]]", r#"["float","ScalarList","Scalar"]"#, "");
    assert_eq!(bytes("aten::sum", &sum), 32_768 * 4);
    assert_eq!(
        cost("aten::mm", &call("[[2,3],[3,4]]", r#"["float","float"]"#, "")).clone(),
        Cost::Known(Work {
            flops: Some(48),
            bytes: Some((6 + 12 + 8) * 4)
        })
    );
}

#[test]
fn unknown_ops_and_bad_inputs_have_no_figure() {
    assert_eq!(cost("aten::nonzero", &call("[[4]]", r#"["float"]"#, "")), Cost::Unknown);
    let skipped = |name: &str, c: Call| match cost(name, &c) {
        Cost::Skipped(why) => why,
        other => panic!("{other:?}"),
    };
    assert!(skipped("aten::mm", call("[[2,3]]", r#"["float"]"#, "")).contains("not recorded"));
    assert!(skipped("aten::mm", call("[[2,3,4],[3,4]]", r#"["float","float"]"#, "")).contains("2-d"));
    let huge = format!("[[{0},{0}],[{0},{0}]]", u64::MAX / 4);
    assert!(skipped("aten::mm", call(&huge, r#"["float","float"]"#, "")).contains("overflows"));
    assert!(
        skipped(
            "aten::cat",
            call("[[[2,3],[2,3]],[]]", r#"["TensorList","Scalar"]"#, "")
        )
        .contains("tensor list")
    );
    // An unknown element type: FLOPs still, no bytes.
    let w = cost(
        "aten::mm",
        &call("[[2,3],[3,4]]", r#"["c10::Float4","c10::Float4"]"#, ""),
    );
    assert_eq!(
        w,
        Cost::Known(Work {
            flops: Some(48),
            bytes: None
        })
    );
    assert!(skipped("aten::add", call("[[2,3]]", r#"["quaternion"]"#, "")).contains("unknown"));
}
