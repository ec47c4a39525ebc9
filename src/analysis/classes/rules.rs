//! The one table of kernel class rules (docs/kernel-classes.md): which name patterns make a
//! device event a GEMM, an attention kernel, a norm, … per library and vendor.
//!
//! The rules are tried in order and the first that matches decides, so a specific rule stands
//! before a general one: copies, norms and indexing written as ATen elementwise kernels come
//! before the elementwise rule, convolutions written as implicit GEMMs before the GEMM rules,
//! MoE expert GEMMs before the MoE routing rules. A name no rule matches is `other`.

use super::KernelClass::{self, *};

/// One rule: a class, the library or vendor it was written for, a regular expression (the
/// `regex` crate's syntax, matched anywhere in the name unless anchored) and a real name it
/// matches (the documentation's table shows it; a unit test checks it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    /// The class a matching name gets.
    pub class: KernelClass,
    /// The library, compiler or vendor whose names the rule is for (documentation; the tests
    /// name it when a rule misses its example).
    #[allow(dead_code)]
    pub library: &'static str,
    /// The pattern.
    pub pattern: &'static str,
    /// A kernel name it matches, from a real trace (the tests check that it does).
    #[allow(dead_code)]
    pub example: &'static str,
}

const fn rule(class: KernelClass, library: &'static str, pattern: &'static str, example: &'static str) -> Rule {
    Rule {
        class,
        library,
        pattern,
        example,
    }
}

/// Every rule, in the order they are tried.
pub(crate) const RULES: &[Rule] = &[
    // Collectives first: their names hold words (reduce, sum, copy) of other classes.
    rule(
        Communication,
        "NCCL / RCCL / HCCL",
        r"(?i)^nccl|ncclKernel|ncclDevKernel|^rccl|^hccl",
        "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
    ),
    rule(
        Communication,
        "vLLM / SGLang / aiter custom all-reduce, DeepEP, MSCCL++",
        r"(?i)cross_device_reduce|custom_?all_?reduce|all_?reduce_kernel|allreduce_fusion|two_shot_all_reduce|one_shot_all_reduce|quick_?reduce|mscclpp|deep_?ep|^deepep|dispatch_kernel.*intranode|combine_kernel.*intranode|all_?gather_kernel|reduce_?scatter_kernel|alltoall_kernel",
        "void vllm::cross_device_reduce_1stage<__hip_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __hip_bfloat16*, int, int)",
    ),
    // Copies: device memory traffic that computes nothing.
    rule(
        Copy,
        "CUDA / HIP runtime, MTIA DMA",
        r"^(hip|cuda)?Memcpy|^(hip|cuda)?Memset|^Memcpy|^Memset|^dma|(?i)^memcpy|^memset",
        "Memcpy HtoD (Pinned -> Device)",
    ),
    rule(
        Copy,
        "ATen copy, cast and concatenation",
        r"direct_copy_kernel|copy_device_to_device|_copy_kernel_cuda|CatArrayBatchedCopy|CopyFunctor|^aten::cat|^aten::copy|^aten::_to_copy|recat_copy|(?i)(^|_)copy(_|$)|_copy_kernel$",
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
    ),
    rule(
        Copy,
        "layout transposes (cuDNN, MIOpen, CK)",
        r"(?i)nchwToNhwc|nhwcToNchw|batched_transpose|transpose_kernel|TransposeKernel|permute_kernel|^transpose",
        "batched_transpose_32x64_pack_2x4_ediv_1x2_half",
    ),
    rule(
        Copy,
        "KV-cache writes (vLLM, SGLang, aiter), alone or fused with RoPE",
        r"(?i)reshape_and_cache|store_kv_?cache|set_kv_buffer|kv_?cache_(write|store|copy)|concat_and_cache|rope_store|rope.*(reshape|and)_cache",
        "void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0>(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, __hip_bfloat16*, long const*, long, long, long, long, int, int, int, float const*, float const*)",
    ),
    // Inductor kernels: the fused ATen ops in `triton_<kind>_fused_<ops>_<n>` say what they do.
    rule(
        Attention,
        "Triton / Inductor (flex attention)",
        r"^triton_tem_fused.*(flex_attention|sdpa|attention)",
        "triton_tem_fused_flex_attention_0",
    ),
    rule(
        Conv,
        "Triton / Inductor templates",
        r"^triton_tem_fused.*convolution",
        "triton_tem_fused_convolution_0",
    ),
    rule(
        Gemm,
        "Triton / Inductor templates",
        r"^triton_tem_",
        "triton_tem_fused_addmm_0",
    ),
    rule(
        Norm,
        "Triton / Inductor",
        r"^triton_(red|per)_fused.*(layer_norm|rms_norm|group_norm|batch_norm|rsqrt|var_mean)",
        "triton_red_fused_add_mean_mul_pow_rsqrt_0",
    ),
    rule(
        Index,
        "Triton / Inductor",
        r"^triton_(poi|red|per)_fused.*(embedding|index_select|index_put|index_add|_index|gather|scatter)",
        "triton_poi_fused_embedding_0",
    ),
    rule(
        Copy,
        "Triton / Inductor (only copies, casts, views)",
        r"^triton_poi_fused_(_?(to_copy|clone|copy|cat|view|unsafe_view|permute|transpose|expand|constant_pad_nd|slice|select|squeeze|unsqueeze|stack|split|t)_)+\d+$",
        "triton_poi_fused__to_copy_1",
    ),
    rule(
        Reduce,
        "Triton / Inductor",
        r"^triton_(red|per)_",
        "triton_per_fused__softmax_0",
    ),
    rule(
        Elementwise,
        "Triton / Inductor",
        r"^triton_poi_",
        "triton_poi_fused__unsafe_view_mul_silu_2",
    ),
    // MoE: expert GEMMs are GEMMs; routing, sorting, alignment and permutation are `moe`.
    rule(
        Gemm,
        "MoE expert GEMMs (CK, aiter, vLLM/SGLang fused_moe, triton_kernels, TRT-LLM)",
        r"(?i)moe_gemm|moe_stage[12]|fused_moe_kernel|moe_fused_kernel|fmoe_(g1u1|int8|fp8|bf16)|grouped_gemm|group_gemm|matmul_ogs|^bmm_.*(sm100|sm90|sm103)|moe_mlp|expert_?gemm|cutlass_moe_mm|moe_wna16_gemm",
        "ck_moe_stage1_kernel<BF16, 128, 128>",
    ),
    rule(
        Moe,
        "MoE routing, sorting, permutation (CK, aiter, vLLM, SGLang, TRT-LLM, triton_kernels)",
        r"(?i)moe_?(align|sort|sum|permute|unpermute|routing|gating|gate|topk|finalize|scatter|gather)|moesorting|topk_?softmax|topkgating|grouped_topk|biased_grouped_topk|moe::dev|_combined_routing|routing_?(kernel|compute|indices)|bitmatrix|topk_forward|count_and_sort_expert|expert_?(map|count|ids|offsets)|expandInputRows|finalize_matmul_scatter|compute_expert|ep_scatter|ep_gather|shuffle_rows",
        "moe_sorting_kernel<BF16>",
    ),
    // Norms before attention (flashinfer's norm kernels carry its name) and before elementwise.
    rule(
        Norm,
        "ATen, cuDNN, MIOpen, CK, aiter, flashinfer, vLLM, MTIA",
        r"(?i)rms_?norm|layer_?norm|group_?norm|batch_?norm|instance_?norm|qk_?norm|l2_?norm_(kernel|fwd)|bn_fw|bn_bw|bn_fwd|bn_bwd|cudnn::bn_|GammaBetaBackward|RowwiseMoments|ComputeFusedParams|normalization|MIOpenBatchNorm|MIOpenLayerNorm|welford",
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
    ),
    rule(
        Index,
        "attention metadata",
        r"(?i)kv_indices|kv_indptr|create_flashinfer",
        "create_flashinfer_kv_indices_triton",
    ),
    rule(
        Attention,
        "FlashAttention, FMHA, cuDNN SDPA, flashinfer, TRT-LLM, aiter, CK, vLLM, SageAttention, Triton",
        r"(?i)flash|fmha|attn|attention|sdpa|mha_(fwd|bwd)|fwd_kvcache|batch_?decode|batch_?prefill|single_?(decode|prefill)|BatchPrefill|BatchDecode|mla_|_mla|merge_attn_states|merge_state|cutlass[FB]_|xformers|compute_dot_do_o|convert_dq_to_16bits|decode_kernel.*kv|unified_attention|sage_?(fwd|bwd|attn)|sageattn",
        "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
    ),
    // Convolutions before GEMMs: cuDNN's and MIOpen's are implicit GEMMs.
    rule(
        Conv,
        "cuDNN, MIOpen, CK, CUTLASS conv",
        r"(?i)convol|conv[123]d|conv_(fwd|bwd|dgrad|wgrad)|depthwise|implicit_gemm|implicit_convolve|explicit_convolve|igemm_(fwd|bwd|wrw)|winograd|wgrad|dgrad|fprop|scudnn|im2col|col2im|vol2col|cudnn::cnn|cask_cudnn|cutlass__5x_cudnn|miopenSp3AsmConv|gcnAsmConv|naive_conv|grouped_conv|ConvBwd|ConvFwd",
        "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize64x32x64_stage5_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel__5x_cudnn",
    ),
    // GEMMs: cuBLAS/cuBLASLt (nvjet, xmma, sm*/ampere/volta), CUTLASS, hipBLASLt/Tensile, CK, aiter, Triton.
    rule(
        Gemm,
        "cuBLAS / cuBLASLt (nvjet, xmma, arch-prefixed kernels, gemv, split-K)",
        r"(?i)^nvjet_|xmma_gemm|^(sm\d+|ampere|volta|turing|maxwell|hopper|blackwell)_.*(gemm|gemv)|gemv|gemmSN|gemmk1|splitKreduce|cublasLt|cublas|epilogue::impl::globalKernel|^void gemm|magma_.*gemm",
        "nvjet_sm90_tst_192x192_64x3_2x1_v_bz_coopB_NNN",
    ),
    rule(
        Gemm,
        "hipBLASLt / Tensile / rocBLAS",
        r"^Cijk_|^Cijk|(?i)tensile|hipblaslt|rocblas.*gemm|^Custom_Cijk",
        "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA1024_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT8_6_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_SK0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA4_VWB1_WSGRA0_WSGRB0_WS64_WG32_8_1",
    ),
    rule(
        Gemm,
        "CUTLASS, CK, aiter, vLLM, SGLang, MTIA, any GEMM or matmul",
        r"(?i)(^|[^b])gemm|matmul|_mm_|^mm_|bmm|wvSplitK|LLGemm|skinny|marlin|machete|scaled_mm|^fc-dtype|^aten::(mm|addmm|bmm|linear)|sgemm|hgemm|dot_kernel|wmma|tinygemm",
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
    ),
    // Optimizer steps: fused Adam/AdaGrad/SGD and the foreach kernels optimizers run.
    rule(
        Optimizer,
        "ATen fused/foreach optimizers, apex, FBGEMM TBE fused optimizers",
        r"(?i)adam|adagrad|rmsprop|(^|[^a-z])sgd|lamb_?(stage|functor|kernel)|lion_|fused_optim|multi_tensor_apply|_foreach|optimizer",
        "void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float, int, int>(int, int volatile*, TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float)",
    ),
    // Elementwise kernels whose names hold indexing words.
    rule(
        Elementwise,
        "ATen (arange, where, masked fill)",
        r"elementwise_kernel_with_index|where_kernel|masked_fill|^aten::where",
        "void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1}>(int, at::native::arange_cuda_out(c10::Scalar const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long)#1})",
    ),
    // Indexing: gather/scatter, embeddings, sorting, top-k, sparse feature handling.
    rule(
        Index,
        "ATen, FBGEMM, TorchRec, cub, rocPRIM, SGLang, MTIA",
        r"(?i)index|indice|gather|scatter|embedding|embed_|embs_|sort|topk|unique|nonzero|searchsorted|bucketize|masked_select|take_|put_|jagged|permute_2d|permute_indices|permute_pooled|permute_sparse|offsets_range|bounds_check|sparse|to_dense|DeviceCompact|DeviceSelect|RadixSort|radix_sort|repeat_interleave|compute_cuda_kernel|alloc_(decode|extend)|token_ids|kv_indices",
        "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
    ),
    // Reductions: sums, means, softmax, losses, scans, pooling.
    rule(
        Reduce,
        "ATen, cub, rocPRIM, MIOpen, MTIA",
        r"(?i)reduce|reduction|softmax|SoftMax|sum_|_sum|mean|argmax|argmin|amax|amin|max_dim|min_dim|logsumexp|cumsum|cumprod|scan|nll_loss|cross_entropy|ClassNLLCriterion|bce_with_logits|_loss|pool|norm_float|vector_norm|histogram|^aten::(sum|mean|max|min|prod|any|all|norm)",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
    ),
    // Elementwise: ATen's pointwise kernels and any named activation or arithmetic kernel.
    rule(
        Elementwise,
        "ATen, MIOpen tensor ops, cuDNN scale, vLLM/SGLang activations, MTIA",
        r"(?i)elementwise|pointwise|vectorized|unrolled|Functor|_kernel_cuda|fill|silu|gelu|relu|swiglu|act_and_mul|and_mul|sigmoid|tanh|exp|log|sqrt|rsqrt|clamp|clip|threshold|dropout|rotary|rope|quant|cast|scale|bias|add|mul|div|sub|neg|pow|abs|sign|nan_to_num|logit|arange|fp8|hfp8|to_float|to_half|SubTensorOp|OpTensor|^aten::(gt|lt|ge|le|eq|ne)|^eq_kernel|-dtype_",
        "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
    ),
];
