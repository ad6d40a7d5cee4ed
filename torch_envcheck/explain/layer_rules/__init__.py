"""Layer rules: diagnoses read from what a text is made of (extract.Entities), whoever wrote the message.

Each rule is a pure function of the entities (and the cleaned text, for a position) and returns a
match.Match whose signature is made here, or None:

    abi_tag          GLIBC_/GLIBCXX_/CXXABI_ x not found             -> c-runtime
    torch_abi        a binary wants a c10::/at::/torch:: symbol       -> that package was built for another torch
    built_for        "X was built for PyTorch A (you have B)"          -> X's build, or torch's (B is +cpu)
    library_symbol   nccl*/cublas*/cusparse*/cudnn*/__nvJitLink* wanted -> two versions of that library mixed
    missing_library  a soname/DLL that cannot be found                 -> its provider: wheel, driver, VC++ runtime
    error_code       a code of a decoded family (cudaError_t, CUresult, cuBLAS, ..., NCCL, NVML, HIP, errno,
                     signals, Windows)                                  -> the layer its table gives, the code's advice
    wsl_gpu_passthrough  a GPU that cannot start, in a text from WSL       -> the Windows driver / WSL 2 (wsl layer)
    tensorflow_windows_native  TF >= 2.11 on Windows without a GPU     -> no native-Windows GPU builds: WSL 2
    device_node_permission  /dev/kfd, /dev/dri, /dev/nvidia* refused   -> the groups that own the node
    torch_not_offered_on_mac  a resolver finds no torch on a Mac       -> the last x86_64 macOS release (2.2.2)
    rocblas_on_windows  rocBLAS without Tensile kernels, HIP SDK on Windows -> a HIP SDK (or libraries) with the gfx
    zluda_dll_dependency  WinError 126 under ZLUDA                      -> the HIP SDK's bin folder on PATH
    rocm_kfd_permission  HSA cannot open /dev/kfd, with its group shown   -> the render/video groups
    container_cli    nvidia-container-cli's stage and object          -> the image's driver files, the host driver's state
    pip_of_another_python  pip in an embedded Python's folder, installing elsewhere -> that folder's python -m pip
    gpu_newer_than_build  a kernel that cannot run, a GPU and the CUDA its build was made with -> arch (the sm and
                     the CUDA it needs, knowledge.gpu_generations)
    container_without_gpu  a GPU unreachable in a text from a container  -> --gpus all, or the devices it lost
    nccl_transport   NCCL's WARN lines on its sockets or /dev/shm       -> the interface / host network / shm size
    nccl_ib_completion  NCCL's IB work completion failed (ibv_wc_status decoded) -> the fabric, GPUDirect RDMA
    nccl_shared_memory_limit  ncclMaxSharedMem exceeds the GPU's limit -> an NCCL newer than the GPU
    cuda_after_suspend  CUDA failing next to suspend/resume words       -> reload nvidia_uvm
    toolkit_not_torch_cuda  a build's own nvcc-vs-torch CUDA check      -> the toolkit (CUDA_HOME) or the torch build
    torch_too_new_for_intel_mac, mps_inside_linux_container  Mac structure -> 2.2.2 / run natively
    package_binary_missing  a package's own native library missing       -> that package's build for this CUDA
    p2p_through_pcie_switch_hangs  nvidia-smi topo PIX/PXB and a hang   -> ACS / IOMMU
    devices_unavailable_on_windows  "busy or unavailable" on Windows     -> the driver
    driver_older_than_build  CUDA unusable, the driver's version and torch's CUDA printed -> the driver (its table)
    tensorflow_missing_cuda_runtime  TensorFlow lists several libraries it cannot open -> the CUDA of the first
                     runtime it wanted (cudart64_101.dll: CUDA 10.1)
    package_ops_registration_fails  a package's frame calls into torch.library and fails -> its build for this torch
    visible_devices_hide_the_gpu  no device, with CUDA_VISIBLE_DEVICES set in the text -> that variable
    gpu_arch_needs   a kernel with no code for a GPU (or architecture) named, the build's CUDA not printed -> the sm
                     and the first CUDA (cuXYZ build) it needs
    gpu_below_capability_floor  a component's stated capability floor (a number or an architecture) above the GPU's
                     -> run eager (Triton), the program's dtype / the model's format, another attention, or older release
    arch_vs_toolkit  nvcc / NVRTC refusing a target, the toolkit's CUDA printed -> the first CUDA with it, or the last
    driver_module_mismatch  NVRM's API mismatch, two driver versions   -> one version loaded (reboot / reload)
    container_driver_floor  an image built for driver X, Y detected     -> the host's driver >= X, or an older image
    cdi_device_unresolved  a CDI device (nvidia.com/gpu=...) not resolved -> regenerate the spec, a runtime with CDI
    openmp_with_apple_clang  -fopenmp / omp.h / -lomp refused by Apple clang -> libomp or a compiler with OpenMP
    xla_ptxas        XLA finds no ptxas, or one older than it accepts   -> a CUDA toolkit's ptxas (PATH, XLA_FLAGS)
    intel_graphics_without_nvidia  a GPU error where the text names only Intel graphics -> the CPU, or XPU (Arc)
    driver_symbol_missing  a binary wants a CUDA driver API symbol (cuXxx) -> a driver for the CUDA it was built with
    torch_extension_build_failed  pip's summary of a failed build of a torch extension, no compiler error shown
                     -> its prebuilt wheel (its index), or --no-build-isolation, a compiler, the CUDA toolkit
    ggml_kernel_without_arch  ggml's "no device code compatible with CUDA arch N" -> CMAKE_CUDA_ARCHITECTURES, or the
                     feature off (a kernel the GPU is too old for)
    nvidia_kernel_module_crash  a kernel oops in an NVIDIA module   -> a driver bug: a release with the fix
    xid_event, gpu_unreachable  an Xid of the hardware/reset kind, nvidia-smi without a handle -> reboot, then hardware
    xla_cudnn_version  JAX/XLA found an older cuDNN than jaxlib was built with -> cuDNN of that major, at least that new
    onnxruntime_cpu_only  ONNX Runtime's providers lack CUDA's        -> onnxruntime-gpu alone (the CPU package shadows it)
    onnxruntime_cuda_libraries  its CUDA provider cannot load CUDA/cuDNN -> those majors where the loader looks
    pip_usage_error  pip refusing its command line (no requirement, no such option, an unparsable requirement)
                     -> not-environment: the command
    libcuda_not_in_linker_cache  Triton cannot find libcuda.so (unsloth's "not linked properly", gcc -lcuda)
                     -> TRITON_LIBCUDA_PATH / ldconfig of the driver's folder (WSL: /usr/lib/wsl/lib)
    tensorrt_engine_version  a TensorRT engine serialized by another TensorRT -> build the engine again here
    tensorrt_unsupported_sm  TensorRT's "Unsupported SM" -> arch: a TensorRT release that supports the GPU
    conda_virtual_cuda  a solver's __cuda constraint (the driver's CUDA)   -> a newer driver, or no driver found
    k8s_no_gpu_advertised  "Insufficient nvidia.com/gpu" from the scheduler -> the device plugin and the node's runtime
    cuda_unavailable_cpu_build  is_available() False and how torch was installed -> that installer's CUDA build
    package_dll_load_failed  "DLL load failed while importing _C" under a third-party package -> its build for torch
    package_version_range  "X==A is used but incompatible. Please install X>=B, <C" -> X in that range
    device_type_unknown  a device type the build does not list ('dml', 'npu') -> the backend package that adds it
    package_without_cuda  "This X package was not compiled with CUDA support" -> X's CUDA build
    nvidia_smi_missing_in_container, singularity_without_nv  the driver's files absent inside a container -> its runtime
    not_an_elf_library  "invalid ELF header" on a library               -> the package's Linux build (a DLL in WSL)
    tensorflow_libcuda_not_found  TensorFlow finds no libcuda.so DSO     -> the driver's compute library
    package_op_without_backend  "Could not run 'pkg::op' with arguments from the 'CUDA' backend" -> pkg's CUDA build
    cupy_for_another_cuda  "CuPy failed to load libX.so.N"               -> cupy-cudaNx for the CUDA installed
    miopen_missing_kernel_database  MIOpen's missing .kdb warning alone  -> harmless, not-environment
    jax_cuda_library_not_found  JAX: "The cuSPARSE library was not found" -> jax[cuda12]'s wheels, nvJitLink
    numpy_api_version  "compiled against API version 0x10 but this version of numpy is 0xf" -> numpy >= 1.23
    gpu_older_than_build  a kernel without code for a GPU older than the build's lowest target (its list, range, or the
                     release table for the +cuXYZ printed) -> the same release's older-CUDA build that has it
    gpu_beyond_build_targets  torch's capability warning for a GPU past the build's targets (list or range) -> a build
                     with code for it (release table); a GPU of the range's newest major, just above it -> not-environment
    slurm_job_without_gpu  CUDA_VISIBLE_DEVICES=NoDevFiles            -> the job asked for no GPU (--gres / --gpus)
    conda_environment_missing  "Could not find conda environment: X"  -> create it, or activate one that exists
    torch_placeholder_sdist  pip chose torch 0.1.2's sdist             -> no wheel fits: the Python, the platform
    torch_without_backend  "Torch not compiled with XPU enabled"       -> torch's XPU build (whl/xpu)
    foreign_arch_compiler_flag  gcc refusing an x86-only -m flag        -> the build adds it on ARM: remove it
    homebrew_refuses  Xcode/CLT too outdated, a removed formula option  -> update Xcode / drop the option
    windows_cuda_toolset_missing  CMake's "No CUDA toolset found"      -> the CUDA toolkit's Visual Studio integration
    compile_unsupported_python  "Dynamo/torch.compile is not supported on Python 3.X+" -> the first torch that is
    cpp_extension_compiler_bounds  cpp_extension's host-compiler range for the CUDA -> a compiler in that range
    cuda_arch_unknown_to_torch  "Unknown CUDA arch (X) or GPU not supported" -> TORCH_CUDA_ARCH_LIST, a newer torch
    device_outside_visible_devices  "device N is not visible (CUDA_VISIBLE_DEVICES=...)", NVML's driver not loaded
    dataloader_worker_died  a DataLoader worker killed without an error   -> /dev/shm (--shm-size), host memory
    nvcc_output_missing  nvcc's .cu.o never written, nvcc's "Unknown option" -> nvcc's own error, torch's CUDA toolkit
    namespace_package_shadow  "cannot import name X from 'Y' (unknown location)" -> a folder Y shadows the package
    jaxlib_without_cuda  jax's CPU-only jaxlib on a GPU machine          -> jax[cuda12]
    wheel_tags_not_here  "X.whl is not a supported wheel on this platform" -> the wheel for this Python/OS, read
                     from the file's tags (cp310, win_amd64), or a Python the wheel was built for
    build_isolation_without_torch  "No module named 'torch'" in pip's isolated build stage -> --no-build-isolation
    pip_replaces_torch  pip uninstalling torch to install another package -> that package with torch pinned
    resolver_conflict_report  pip's "but you have X which is incompatible" -> the package pinning torch; alone and
                     nothing else failed, not-environment
    nightly_regression  a failure in a torch X.Y.Z.devYYYYMMDD      -> the release, or a newer nightly
    nvidia_stub_no_wheel  NVIDIA's stub "Didn't find wheel for X" -> WSL 2 where its wheels are Linux's, else the
                     Python/glibc its wheels need
    inductor_cuda_probe_logged  inductor's "Error getting cuda arch"  -> a logged probe, not a failure: not-environment
    driver_sees_no_gpu  nvidia-smi's "No devices were found"          -> the machine (bus, dmesg, the instance), not CUDA
    linker_skips_incompatible_library  ld's "skipping incompatible X"  -> a toolchain for the library's architecture
    setup_py_install_refused  setuptools' "Please avoid running setup.py" -> `python -m pip install .`
    conda_usage_error  conda's argparse refusing its command line     -> not-environment: one -c per channel
    torchsharp_without_libtorch  TorchSharp without its libtorch-* NuGet package -> that package reference
    cuda_available_in_another_run  CUDA available in one run, not in another -> two Python environments (env)
    cluster_cuda_module_not_loaded  no usable CUDA where the text loads a CUDA module -> `module load` in the job
    torch_not_in_this_python  "No module named 'torch'" outside a build -> that interpreter's own `python -m pip`
    qt_imported_before_torch  torch's DLLs failing where PyQt/PySide is used (torch >= 2.9, Windows) -> import torch first
    nccl_ib_async_event  NCCL's "NET/IB : Got async event : port error" -> the InfiniBand fabric (links, counters)
    uv_resolution_report, poetry_no_candidates, conda_arm_variant, index_option_as_requirement, hash_mismatch,
    wheel_record_mismatch  the installers' own words (installers.py): uv's clauses, Poetry's chooser, a conda
                     solver's arm-variant leaf, an index option read as a requirement, hash checks -> the index, the
                     Python, the pin, the download
    install_interrupted, externally_managed, certificate_not_trusted, wheel_url_refused, conda_solver_refusals,
    built_wheel_not_installed  the install itself failing (install_process.py): the machine under pip (disk, memory,
                     timeouts, permissions, a file held open), PEP 668, certificates, moved URLs, conda's refusals
    triton_of_another_api  Triton without the name/module/type its caller wants (GPUTarget) -> one Triton, torch's pin
    nccl_watchdog    ProcessGroupNCCL's "collective operation timeout" / "watchdog got stuck" -> the rank that did not
                     join the collective (desync debug), the hang under the watchdog (its heartbeat variable)
    rendezvous_unreachable, env_rendezvous_variable_missing, tcpstore_without_libuv, nccl_versions_differ,
    nccl_hang_after_plugin_line  launching on several GPUs and machines (rendezvous.py): the store no rank can reach,
                     env:// without its variable, a TCPStore built without libuv, NCCL versions differing between
                     ranks, a hang after NCCL's plugin line -> the address/port/firewall, the launcher, USE_LIBUV=0,
                     one NCCL everywhere, NCCL_DEBUG=INFO and the network variables
    rccl_iommu_pt_missing  RCCL's "Missing iommu=pt from kernel command line" -> the kernel parameter
    static_tls_exhausted  "cannot allocate memory in static TLS block" -> LD_PRELOAD of that library, import order,
                     glibc's optional_static_tls tunable
    intel_gpu_not_found, extension_needs_torch  Intel GPUs (intel_gpu.py): Level Zero / SYCL finding no GPU -> the
                     compute runtime and the render group; IPEX's torch check -> the matching release
    half_precision_on_cpu  a CPU kernel without Half/BFloat16 -> the program's dtype on the CPU (not-environment); where
                     the text says the GPU did not engage (ZLUDA, DirectML, CUDA unavailable) -> gpu-unused
    l4t_container_without_runtime, jetson_device_nodes  Jetson (jetson.py): a CUDA library missing in an l4t image
                     -> the NVIDIA runtime (default-runtime for builds); NvRm/nvmap channels refused -> the video group
    gpu_reset_refused, row_remapping_state, fabric_manager_without_nvswitch  nvidia-smi's and the Fabric Manager's
                     own words on a GPU's state -> stop the clients, reset (or RMA), no NVSwitch
    package_own_symbol_missing  a package's extension wanting its own function -> its release wheel, a fixed release
    vllm_memory_taken_at_start, llama_cpp_python_cpu_build  LLM servers: vLLM's start-up memory check -> what holds
                     the GPU, a share that fits; llama-cpp-python's CPU-only default build -> CMAKE_ARGS per shell
    stdlib_module_removed, interpreter_without_module  the interpreter (interpreter.py): a module Python 3.12/3.13
                     removed -> setuptools' distutils, a release without it, a backport; a C module not built -> the
                     library's development files and the interpreter built again
    slurm_request_refused, slurm_memory_kill, slurm_step_without_gpu, module_unknown  the batch scheduler
                     (scheduler.py): Slurm's refusal read from its own table -> the part of the request it names; its
                     cgroup's OOM kill -> --mem; a job step without a GPU -> --gres/--gpus; a module the site's module
                     system does not know -> env: module spider
    backend_not_built    "doesn't have MPI built in" / "Unknown c10d backend type MPI" -> nccl or gloo, or a source build
    nccl_ibv_call_failed  NCCL's "Call to ibv_create_qp failed" -> the locked-memory limit of the job
    cudart_lookup_of_old_torch  torch 1.0's "couldn't find libcudart" -> a current torch, or LD_LIBRARY_PATH
    k8s_gpus_unhealthy, nvcc_missing_in_image  a node's Allocatable GPUs below its Capacity -> the device plugin's
                     health check; nvcc missing under an image tag's flavour -> the devel tag, or PATH
    glibc_binary_on_musl  musl's loader words for a glibc piece -> a glibc-based image (not Alpine)
    mig_instances_in_one_process  a MIG device and a device index past the first -> one MIG instance per process
    gpu_counters_restricted, cupti_subscriber_taken, cupti_library_not_found, nvprof_on_ampere,
    nvml_query_not_supported, nvml_function_missing, pynvml_missing  profiling and monitoring (profiling.py): the
                     counters' admin restriction, CUPTI's one subscriber, libcupti's folder, nvprof before Ampere,
                     NVML's NotSupported, NVML functions a driver or binding lacks, pynvml for torch.cuda
    installer_module_not_loaded, dkms_stale_entry, nccl_ofi_without_efa  the NVIDIA installer's module that did not
                     load (Secure Boot's signing first), DKMS' stale entry, AWS's NCCL plugin without EFA
    egl_error, gl_libraries_missing, driver_below_component_floor  the graphics side (graphics.py): EGL's codes and
                     eglInitialize, the EGL/GL libraries missing (a container's graphics capability), a driver below a
                     component's encoded CUDA or Omniverse's range
    torchaudio_ffmpeg_missing, torchaudio_no_backend, torchaudio_sox_missing, torchcodec_missing,
    ctranslate2_compute_type, whisper_fp16_on_cpu  speech and audio (audio.py): torchaudio's FFmpeg, SoX and soundfile
                     backends and TorchCodec -> the FFmpeg majors the release loads, libsox (none on Windows), the
                     torchcodec built for the torch; CTranslate2's compute types -> the CPU has no float16 (the
                     program), a GPU below the type's capability (arch), no GPU seen under faster-whisper (its CUDA
                     libraries); Whisper's FP16-on-CPU warning -> not-environment
    companion_cuda_differs  "PyTorch and TorchAudio were compiled with different CUDA versions" -> that package from
                     torch's CUDA index (the tag read from the message)
    select_device_hides_gpu, torchvision_image_warning, spconv_cpu_build, nvdec_driver_library  the computer-vision
                     libraries (vision.py): YOLO's select_device writing the device into CUDA_VISIBLE_DEVICES -> env;
                     torchvision's bare image-extension warning -> not-environment; cumm's "don't compiled with cuda"
                     -> spconv-cuXYZ; cuvid* / libnvcuvid -> the driver's video libraries (the video capability)
    static_library_without_pic  ld's "recompile with -fPIC" for an archive linked into a shared object -> the
                     project's shared libraries (FFmpeg --enable-shared, a Python built --enable-shared) or -fPIC
    dgl_library_for_torch, index_only_distribution  the graph-learning libraries (graphs.py): DGL's per-torch
                     graphbolt/tensoradapter library missing -> the DGL build for that torch (its index), a torch
                     version it ships, a plain release number (not conda-forge's .postNNN); pip finding no pyg-lib
                     -> its project's index (PyPI carries none)
    op_input_size_check  an operator's check over .size()/.dim()/.numel() failing -> the program's tensors
    pickle_for_workers, spawn_reimports_main, start_method_already_set, dataloader_option_refused, worker_raised,
    pin_memory_thread_failed, worker_segfault  the DataLoader's workers and multiprocessing (workers.py): pickling
                     under spawn, an unguarded main module, the start method set twice, the DataLoader's own argument
                     checks, a worker's own exception, the pin-memory thread, a worker's native crash -> not-environment
    onnxruntime_provider_library, onnxruntime_tensorrt_provider, onnxruntime_cudnn_not_started, onnxruntime_trt_decryption,
    onnx_export_unsupported_operator, openvino_gpu_not_intel, openvino_no_opencl_platform  inference runtimes and model
                     export (inference.py): ONNX Runtime's provider library lacking the CUDA/cuDNN/TensorRT library it
                     names (its release's majors), or a DLL on Windows; its TensorRT provider not created; cuDNN not
                     starting in its CUDA provider (CUDNN failure 1/4, 1001/4000) -> the CUDA/cuDNN/driver it needs; the TensorRT
                     EP's engine decryption switched on -> not-environment; torch.onnx without a conversion for an
                     operator -> not-environment (the opset, the dynamo exporter); OpenVINO's GPU plugin on a GPU of
                     another vendor -> arch; no OpenCL platform -> Intel's compute runtime
    inductor_cxx_compiler_not_found, dynamo_recompile_limit, triton_compiler_pass_failed  torch.compile at run time
                     (compile.py): inductor's "Compiler: cl is not found." -> MSVC's cl.exe on PATH (a developer
                     prompt); Dynamo's recompile limit -> not-environment: the guard that keeps failing; Triton's
                     "PassManager::run failed" in its compiler stages -> not-environment: the kernel's configuration
    pickled_model_module_missing, save_write_failed  saving and loading models (program.py): torch.load of a pickled
                     model whose project module is not importable -> not-environment: the program's path, or a state_dict;
                     torch.save's write refused by the OS -> not-environment: the destination's storage
    allocator_config_refused, allocator_alias_warning, expandable_segments_ipc  the caching allocator's settings
                     (allocator.py): its refusals of PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF (an unknown or
                     misspelt key, one newer than the torch, a value out of range, not True/False) -> the variable;
                     the old name's deprecation warning -> keep it (2.9.x ignores the new name for expandable
                     segments); expandable-segment tensors refused between processes -> expandable_segments off there
    tf32_notice, deterministic_algorithms, flash_attention_dtype, loss_scale_skipped_step  numerics and precision
                     (numerics.py): TF32 notices -> not-environment; deterministic algorithms with cuBLAS and no
                     CUBLAS_WORKSPACE_CONFIG -> env (the variable before the process starts); an operation without a
                     deterministic kernel -> warn_only; FlashAttention given float32 -> half precision or sdpa; fp16
                     loss scaling skipping a step (ESPnet, DeepSpeed, fairseq, apex) -> expected now and then
    extension_jit_build_failed, deepspeed_op_unavailable, accelerate_launch_defaults, accelerate_bf16_unavailable,
    device_map_refused  the training frameworks over torch (trainers.py): a torch extension's run-time build failing
                     -> the compiler's first error (nvcc vs torch's CUDA), DS_BUILD_<OP>=1; DeepSpeed's CPU optimizer
                     without its op, setup.py unable to prebuild an op -> that op's build (async_io: libaio-dev); the
                     async_io notice alone, accelerate launch's defaults, bf16 on a GPU without it, a refused
                     device_map -> not-environment
    store_python_alias, store_python_protected, build_tool_not_started, torch_dll_without_code  the Windows host around
                     Python
                     (windows_host.py): the Microsoft Store's python alias -> a Python on PATH; pip refused in the Store
                     Python's WindowsApps folder -> a venv or python.org's Python; [WinError 2] while building an
                     extension -> cl.exe from a developer prompt, nvcc, ninja; torch's "Error loading X.dll" without its
                     WinError code -> the Visual C++ runtime
    dyld_library_not_loaded, openmp_runtime_not_linked, mps_fallback_notice, metal_plugin_mismatch  the macOS host
                     (macos_host.py): dyld's "Library not loaded" (libomp: Homebrew's, beside libtorch) and a binary for a
                     newer macOS (load command 0x80000034); ld's undefined ___kmpc_* -> libomp linked; MPS's CPU
                     fallback notice -> not-environment; libmetal_plugin missing a TensorFlow symbol -> the pair its
                     table lists
    nvidia_wheel_pin_conflict, nvidia_wheel_not_served, nccl_without_gpu_arch  CUDA's libraries as packages and builds
                     (cuda_wheels.py): a user's nvidia-* pin against torch's -> drop the pin; an index not serving an
                     nvidia-* wheel torch needs -> another index variant or PyPI as an extra index; NCCL's "named symbol
                     not found" -> an NCCL built for this GPU's sm
    inline_source_error, module_init_missing  extensions built against the installed torch (extension_builds.py): a
                     compiler error inside load_inline's own main.cpp / cuda.cu -> not-environment: the code given;
                     "dynamic module does not define module export function" -> a clean build under the imported name
    xla_registration_notices  XLA's plugins or computation placer registered twice, alone -> not-environment
    package_cuda_module_missing, compiler_killed  (extension_builds.py) a package's own top-level compiled module not
                     importable from its code (or a NameError after a caught import) -> that package's extension; a
                     compiler killed by signal 9 while building -> MAX_JOBS
    capability_refused_in_words, llvm_unknown_processor, hip_no_kernel_image  a GPU's architecture in words
                     (gpu_words.py): "capability X, NOT SUPPORTED" / cuDF's missing PTX -> arch; LLVM not knowing sm_NNN
                     -> the compiler's LLVM (Triton); HIP's "no kernel image" -> rocm: the build's gfx targets
    venv_without_pip, import_halted, nan_check_refused  what launchers and web UIs print (launchers.py): a venv
                     without pip -> env; "import of X halted; None in sys.modules" -> env (xformers: --xformers); the
                     UNet's NaN check -> not-environment (--no-half, upcast)
    jax_jaxlib_mismatch, pip_extra_not_provided, jaxlib_cuda_version_not_found, xla_out_of_memory  JAX on the GPU
                     (jax_stack.py): jax's own version check and a CUDA plugin of another release -> one release of jax,
                     jaxlib and the plugin; pip's "does not provide the extra" (jax's CUDA extras: Linux only); a
                     jaxlib+cuda pin -> jax[cuda12] from PyPI; XLA's out of memory -> not-environment
    conda_plan_cpu_build, conda_dependency_range, conda_resolve_package_not_found  conda environments (conda_envs.py):
                     a transaction choosing pytorch's CPU build; the cudatoolkit range pytorch asks in a conflict report;
                     an environment file's packages no channel has
    tensorflow_self_check_dll  TF 1.x naming the CUDA DLL it was built for -> that CUDA, or the TF for the CUDA installed
    trainer_bf16_refused, quantization_needs_packages, torchao_extensions_skipped, torch_extension_wheel_not_found,
    name_missing_from_package  fine-tuning LLMs (finetune_stack.py): transformers' bf16 refusal (arch: fp16), its
                     8-/4-bit loading needing a CUDA torch, torchao's extensions for another torch, pip finding no wheel
                     of a package built per torch, a name missing from a pure-Python library (env: its release)
    wheels_all_skipped, untrusted_index_ignored  pip's verbose reports (pip_reports.py): every wheel of a distribution
                     skipped for its tags -> a Python it has wheels for; an HTTP mirror ignored -> HTTPS, --trusted-host
    horovod_torch_without_cuda  Horovod's GPU build finding a CPU torch (distributed_frameworks.py) -> torch's CUDA build
    nvml_library_mismatch  nvidia-smi's "Mismatch in versions between nvidia-smi and NVML" -> a stray libnvidia-ml.so
    torch_build_gcc_too_old, cmake_mkl_not_found, nccl1_where_nccl2_needed  building PyTorch from source
                     (torch_source_build.py): torch's GCC floor (CC/CXX), CMake not finding MKL (CMAKE_PREFIX_PATH,
                     mkl-include), NCCL 1 where NCCL 2's API is needed (USE_SYSTEM_NCCL)
    hsa_status_error, gpu_memory_fault_rocm, host_without_kfd, cudnn_frontend_no_plan  ROCm's runtime in its own words
                     (rocm_runtime.py): HSA's statuses, a GPU memory fault, a host without /dev/kfd -> rocm; cuDNN's
                     frontend without a plan for the graph -> not-environment
    omp_runtime_twice, mkl_threading_vs_gomp, mkl_cannot_load, mkl_service_missing, openblas_in_openmp,
    openblas_threads_refused  the CPU math and threading libraries (cpu_math.py): OMP Error #15, MKL's threading layer
                     against libgomp, MKL's own libraries, mkl-service, OpenBLAS inside OpenMP, OpenBLAS's threads refused
    notebook_restart_after_install, vscode_kernel_needs_ipykernel  notebooks (notebooks.py): a restart after
                     installing into a running kernel, ipykernel in the kernel's interpreter -> env
    apt_unmet_cuda_dependencies, nvcc_not_on_path, windows_cuda_installer_failed, linker_two_sonames, ptxas_not_found,
    download_url_not_found  the CUDA toolkit itself (cuda_toolkit_setup.py): apt's unmet dependencies, nvcc not on
                     the shell's PATH, the Windows installer's Visual Studio integration, two sonames in one link, no
                     ptxas for Triton or XLA -> toolchain; a download URL answering 404 -> not-environment
    cuda_library_member_missing, msvc_stl_rejects_cuda, extension_without_gpu_code, tcnn_unknown_compute_capability,
    package_refuses_torch_version  CUDA extensions' sources and setup scripts (cuda_sources.py): Thrust/CUB names
                     without their header, cooperative groups of newer GPUs, MSVC's STL1002, "Not compiled with GPU
                     support", tiny-cuda-nn's unknown compute capability, a package's torch range
    nccl_socket_wrong_type  NCCL's ranks on different transports (nccl_words.py) -> NCCL_IB_DISABLE or InfiniBand
                     everywhere
    nvidia_repository_key, nvcc_not_in_image, cuda_library_api_removed, cuda_runtime_api_removed  NVIDIA's rotated apt
                     key and nvcc outside devel images (cuda_toolkit_setup.py) -> container; a CUDA library function the
                     headers no longer declare, or the runtime's own removed API (cuda_sources.py) -> toolchain
    gl_interop_failed  CUDA's OpenGL interop (graphics.py: cudaGraphics* failing under nvdiffrast) -> driver
    torchvision_video_backend_missing, torchaudio_codec_symbol, torchscript_custom_op_unknown, companion_torch_pin,
    torchvision_module_moved, windows_module_dependencies_missing  torch's companion packages in their own words
                     (companion_packages.py): video backends, SoX's codec libraries -> libraries;
                     custom operators not loaded, a companion pinned to another torch -> toolchain; torchvision's moved
                     modules -> env; Windows' "Could not find module ... (or one of its dependencies)" -> windows-runtime
    keras3_refused, keras3_module_missing, tensorflow_addon_symbol, tensorflow_preload_dll, paddle_third_party_library,
    paddle_cpu_package, mindspore_cuda_mismatch, hyperv_partition_policy  the frameworks' own families and checks
                     (framework_families.py): Keras 3 and tf-keras, TensorFlow's add-ons and Windows self-check, Paddle's
                     loader and CPU package, MindSpore's CUDA check, Hyper-V's GPU partitioning policy
    directml_plugin_not_loaded, tensorflow_kernel_helper_header  TensorFlow's DirectML plugin under 2.11+, a custom
                     op's kernel helper header of another TensorFlow (framework_families.py)
    directml_parameter_refused, rocm_under_wsl_without_amdgpu, triton_intel_without_sycl  other GPUs on Windows and WSL
                     (windows_accelerators.py): DirectML's E_INVALIDARG -> not-environment; ROCm under WSL -> wsl;
                     Triton's Intel backend without SYCL -> toolchain
    torch_cuda_older_than_gpu  torch 0.x's warning that a GPU needs a newer CUDA build (torch_release.py)
    directx_device_removed, directml_package_missing, gpu_stack_dll_dependency  DirectX's removed device -> driver;
                     torch-directml not installed -> torch-build; WinError 126 for IPEX's DLLs (oneAPI's runtime) or
                     caffe2_nvrtc.dll (NVRTC, ZLUDA and the HIP SDK) -> windows-runtime (windows_accelerators.py)
    xpu_free_memory_unsupported  torch.xpu.mem_get_info on a device whose runtime has no free-memory query
                     (intel_gpu.py) -> torch-build
    paddle_cudnn_older_than_build  Paddle's warning of a loaded cuDNN older than its build's (framework_families.py)
    lua_module_not_found  Lua's require in Torch7 finding no module (framework_families.py) -> libraries: luarocks
    cuda_jl_not_initialised  CUDA.jl's initialisation failing (framework_families.py) -> driver
    onnxruntime_cudnn_not_started, dnn_library_init_failed  cuDNN not starting under ONNX Runtime (inference.py) or
                     StreamExecutor (tensorflow.py) -> cudnn: the cuDNN the build was made with
    compose_gpu_devices_rejected, image_for_another_cpu  Compose's schema refusing GPU devices, an image of another
                     CPU architecture ("exec format error") (containers.py) -> container
    ordinal_from_local_rank  "invalid device ordinal" from set_device(local_rank) (rendezvous.py) -> env: more
                     processes than visible GPUs
    nvenc_api_newer_than_driver, ffmpeg_codec_not_built, nvenc_session_refused,
    torchvision_gpu_decoder_missing  video on NVIDIA GPUs (video_codecs.py): NVENC's API against the driver, FFmpeg builds without a hardware codec, NVENC's session cap,
                     torchvision's GPU decoder
    triton_kernel_source_error, ptxas_register_allocation, gpu_family_instruction, torch_pins_triton,
    triton_older_than_cuda  Triton's kernels
                     (triton_kernels.py): the kernel's source and configuration -> not-environment; another GPU
                     family's instructions -> arch; torch's Triton pin -> toolchain; a CUDA its PTX table lacks -> arch
    nvidia_library_on_macos, generator_device_mismatch  NVIDIA's libraries asked for on macOS (macos_host.py); a random
                     generator on another device (program.py)
    module_insert_refused, driver_not_loaded_told, installer_gpu_not_supported, persistenced_cannot_start  installing
                     the NVIDIA driver on Linux (driver_install.py): modprobe's errno words (Secure Boot, no device, another
                     kernel), the module not loaded in words, the installer finding no supported GPU, persistenced as a user
    framework_cpu_build  MXNet, XGBoost, OpenCV or Faiss saying its build has no CUDA -> that library's CUDA build
    jax_pjrt_plugin_mismatch  "Mismatched PJRT plugin PJRT API version" -> jax, jaxlib and its plugin of one release
    tensorrt_version_mismatch  TF-TRT's "Compiled against version A, but loaded B" -> the TensorRT A on the loader's path
    build_finds_no_toolkit  a source build's own "no CUDA toolkit" words (CuPy, a None CUDA_HOME, Bazel) -> the toolkit
    companion_version_range  "Requires <pkg> version <range> but got <v>" -> that package within the range
    gpu_in_error_state  nvidia-smi's ERR! for a GPU -> the GPU's state (Xid, reset, reboot), not the packages
    env_var_path_not_found  "<ENV_VAR> <path> is not a valid file path" -> the variable as the failing process sees it
    jax_xla_compiler_pieces  XLA under JAX without libdevice / ptxas -> the jax[cuda12] wheels or --xla_gpu_cuda_data_dir
    build_option_left_out  an operator missing where the build turned its part off (X_DISABLE_Y=1) -> rebuild without it
    jax_cuda_library_too_old  JAX's "Outdated cuBLAS installation" / "Found cuSOLVER version A ... built against B"
    cuda_image_tag_gone  an nvidia/cuda tag Docker Hub no longer has -> a current tag of a CUDA the driver supports
    container_runtime_reads_no_driver  nvidia-docker's "driver 0.0 < image" -> the runtime's link to the driver
    conda_package_cache_corrupt, conda_channel_http_error  conda's own download/verify errors -> conda clean; the channel
    kernel_module_not_built  DKMS's failed build of the nvidia module for a kernel -> that kernel's headers, a branch
    optional_kernels_notice  xformers' Triton notice alone -> not-environment
    package_asks_for_pin  a failure naming "install X==V" -> that pin
    cuda_in_forked_child  CUDA's initialization error where the text forks workers -> not-environment: spawn
    child_killed_by_oom  a launcher's child killed by SIGKILL (-9) -> not-environment: host memory
    lightning_gpu_setting  Lightning's "GPU available: True, used: False" -> not-environment: the Trainer's arguments
    ggml_binary_archs, llm_runtime_cpu_only, launcher_finds_no_gpu  ggml's ARCHS, ollama's CPU-only backends,
                     DeepSpeed's "no GPU resources"
    frozen_app_import  a PyInstaller/Nuitka bundle failing an import   -> not-environment: the bundle's recipe
    crash_at_import  a segfault right after the imports, before the program runs -> LD_LIBRARY_PATH, import order
    import_crash_told  "crashes/kernel dies when importing torch", told in words -> the binary on this machine
    gpu_lacks_feature  int8 matmul / fast FP16 / CUDA graphs refused in words -> arch: bitsandbytes >= 0.37, FP32, off
    autocast_refused, sdpa_no_kernel, xformers_inputs_refused  torch.autocast's bf16 / device-type refusals, SDPA's
                     "No available kernel", xFormers' operator table refusing the inputs -> not-environment: the call
    pytorch_name_on_pypi  pip asked for PyPI's placeholder "pytorch"   -> the package is torch
    conda_finds_no_pytorch  conda's "not available from current channels: pytorch" -> -c conda-forge (-c pytorch <=2.5)
    library_page_alignment  "ELF load command alignment not page-aligned" -> a build linked for 64 KiB pages
    setuptools_without_pkg_resources_packaging  setuptools 70+ without pkg_resources.packaging -> setuptools<70, torch 2.2+
    package_needs_newer_torch  "X requires torch>=A", "upgrade torch to at least vA" -> torch >= A in its CUDA build
    torch_attribute_missing  "module 'torch' has no attribute 'X'"  -> a local torch.py, the caller older than torch
                     (torch.distributed's own API or _c10d_init missing -> a build without distributed)
                     (a _private name), or torch older than the code (a public name)
    torch_load_weights_only  torch 2.6's weights-only torch.load refusing a checkpoint -> the program's call
    compile_refused_on_windows  "Windows not yet supported for torch.compile" -> eager, WSL 2, a newer torch
    conv_input_channels, index_past_size, mps_array_over_4gb  the program's data read from the numbers it prints
                     -> not-environment: what to look at (RGBA images, vocab_size, smaller pieces on MPS)
    cmake_package_not_found  CMake's config-mode find_package failing ("Torch", "Caffe2", any package) -> CMAKE_PREFIX_PATH
                     / <Pkg>_DIR at its installation (torch.utils.cmake_prefix_path, the LibTorch folder)
    torch_symbols_unresolved_at_link  ld / link.exe missing c10::, at::, torch:: symbols -> the C++ ABI (a std::string
                     of the other ABI in them), torch_cpu.lib (torch >= 1.5), or TORCH_LIBRARIES on that very target
    cmake_library_notfound  "X-NOTFOUND" given to the linker -> one complete LibTorch of the build's configuration
    libtorch_not_on_loader_path  a program started without libtorch*/libc10 (or its DLLs) -> LD_LIBRARY_PATH spelt
                     exactly, an rpath, the DLLs beside the .exe; the CPU download lacks libtorch_cuda
    libtorch_without_cuda  "Cannot initialize CUDA without ATen_cuda library", is_available() false in C++ -> the CUDA
                     LibTorch, or torch_cuda kept by the linker (--no-as-needed)
    cmake_cuda_target_missing, cmake_cudnn_not_found  CUDA::nvToolsExt (or torch's "Failed to find nvToolsExt") gone with NVTX 3; Caffe2's CMake without
                     cuDNN -> CUDA::nvtx3; CUDNN_ROOT / CUDNN_INCLUDE_DIR / CUDNN_LIBRARY
    torch_file_format_version  a serialized file's format version outside the reader's range -> the newer torch, or
                     the file exported again
    torch_archive_unreadable, exported_program_refusals  a file that is no torch archive; torch.export's refusals
                     -> not-environment: the file, the program
    windows_build_configuration  a Debug program with a Release LibTorch -> one configuration (/MD, /MDd)
    protoc_older_than_sources  protoc asking proto2 labels in a proto3 file -> one protobuf, new enough
    glibc_pieces_mixed  "version `GLIBC_PRIVATE' not found" -> the stray glibc library bundled beside the system's
    torch_model_file_unreadable, torch_api_not_declared, aten_needs_cxx_standard, torch_cmake_library_missing,
    cmake_package_files_missing, cmake_probe_log, cpp_extension_argument_too_new, program_loads_another_libtorch,
    libtorch_cuda_output_false, torch_program_platform_link, other_library_in_old_abi  the C++ side in its other
                     messages: a model reader's words, "not a member of 'torch'", ATen's C++ standard, TORCH_LIBRARY
                     missing, an imported target's missing file, probe logs, cpp_extension's keywords, a program finding
                     another libtorch, is_available() printed false, MinGW / Android symbols, torch's old-ABI flags
    mkl_without_itt_symbol  libtorch_cpu.so wanting iJIT_NotifyEvent  -> MKL below 2024.1
    libtorch_binding_message, libtorch_program_dll_not_found, torchscript_program_error, libstdcxx_debug_mode
                     LibTorch's bindings in their own words (knowledge.bindings), STATUS_DLL_NOT_FOUND from a LibTorch
                     program, TorchScript refusing the program, -D_GLIBCXX_DEBUG

    tool_not_found, smi_field_unknown  a stack tool the shell cannot find (prime-select, nvidia-ctk, rocminfo: the
                     package that owns it); nvidia-smi not knowing a query field (driver_tools.py)
    build_without_device_type  "PyTorch is not linked with support for X devices" -> the build with X (torch_release.py)
    library_fell_back_to_cpu  a library's "no GPU, using the CPU" warning -> gpu-unused: what torch sees (cpu_fallback.py)
    mps_bfloat16_refused  bfloat16 refused on MPS -> macos: macOS 14, or float16/float32 (macos_host.py)

    egl_device_for_cuda_missing, egl_platform_device_missing, gl_error_code, physx_gpu_launch_failed  Magnum's EGL
                     device for a CUDA device, MuJoCo's EGL device display, OpenGL's error codes, PhysX's GPU kernels
                     failing to launch (graphics.py)
    blas_argument_refused  BLAS's xerbla line -> not-environment: the caller's argument (program.py)
    extension_built_without_cuda  "Compiling X without CUDA" -> toolchain: FORCE_CUDA, a CUDA torch (extension_builds.py)
    install_path_too_long  pip's Errno 2 for a Windows path past MAX_PATH -> LongPathsEnabled (windows_host.py)
    device_count_query_failed  "Failed to query CUDA device count" -> the driver (gpu_health.py)
    package_library_missing  a torch-extension package's own compiled library not loadable (fbgemm_gpu_py.so) ->
                     toolchain: that package's build for the installed torch (extension_builds.py)
    sanitizer_report  compute-sanitizer's report of a kernel's access -> not-environment: the kernel (program.py)
    profiler_events_unmatched  torch.profiler's events unpaired with Kineto's -> not-environment: when the profiler
                     starts (profiling.py)
    torch_module_removed  a torch module a release removed (torch._six) imported -> the importing package's release
                     for this torch (packages.py)
    cython_api_mismatch  Cython's "does not export expected C function" -> two packages of different releases
                     (packages.py)
    runtime_newer_than_driver, package_cuda_runtime_too_old  a banner's runtime and driver CUDA versions; a package's
                     own check of the runtime it found (driver_versions.py)
    runtime_handler_missing, nvml_unloadable_in_plugin  containerd without the "nvidia" runtime for a RuntimeClass; a
                     Kubernetes GPU component without NVML in its container (containers.py)
    tensorflow_abi   a TensorFlow op library wanting a tensorflow:: symbol -> the companion's release for this TensorFlow,
                     or TensorFlow's compile/link flags and string ABI for one's own op (packages.py)
    torchvision_built_without_codec  torchvision's "not compiled with libjpeg/nvJPEG support" (companion_packages.py)
    tensor_sharing_refused, profiler_with_workers, pin_memory_without_accelerator  CUDA IPC on Windows, a non-CPU
                     tensor through shared memory, the profiler's CUDA mode with DataLoader workers (not-environment);
                     pinned memory without an accelerator (gpu-unused) (program.py)
    cpu_autocast_dtype  torch's CPU autocast refusing float16 -> not-environment (numerics.py)
    nan_in_output    NumPy's invalid-value warning on a cast -> not-environment: NaN in the output (numerics.py)
    numba_gpu_below_minimum, numba_driver_missing_function  numba's minimum compute capability (gpu_words.py); a library
                     loaded as the driver without the driver API (runtimes.py)
    lightning_gpus_requested, lightning_accelerator_unavailable  Lightning's device checks (trainers.py)
    signal_outside_main_thread, grad_scaler_misuse  a signal handler off the main thread (program.py); GradScaler's
                     unscale_ twice (numerics.py) -> not-environment
    flash_attention_2_refused  transformers refusing Flash Attention 2: the class, float32, flash-attn missing
                     (finetune_stack.py)
    torch_extension_not_installed  a torch-extension distribution not importable -> its build (extension_builds.py)
    cmake_find_module_failed, make_no_rule_for_cuda_file  CMake's Find modules, make with another CUDA's path
                     (toolchain.py)
    docker_daemon_unreachable  the docker client without its daemon (containers.py)
    xgboost_data_on_cpu  XGBoost on the GPU with host data -> not-environment (program.py)
    onnxruntime_providers_required  ORT 1.9+ without providers= -> not-environment (inference.py)
    offloaded_model_moved  a model with offload hooks moved by hand -> not-environment (finetune_stack.py)
    onnx_opset_beyond_exporter, onnx_package_missing  torch.onnx: an opset past this torch's exporter (torch-build), the
                     onnx package not importable (env) (inference.py)
    only_yanked_releases  pip finding only yanked releases, then none -> env: the project's install route (pip_reports.py)
    nvrtc_source_error  NVRTC's compile log of a run-time source -> not-environment (program.py)
    xla_no_ptx_compiler  XLA finding no ptxas/nvlink/NvJitLink -> the CUDA compiler tools (jax_stack.py)
    keras_needs_newer_tensorflow, keras_backend_unknown, tensorflow_without_keras  Keras 2.4+ under an older
                     TensorFlow, Keras 3's KERAS_BACKEND, a tensorflow without keras (framework_families.py)
    own_file_shadows_package  the program's X.py importing X -> not-environment: rename the file (program.py)
    mixed_precision_needs_gpu  Accelerate's fp16 without a GPU torch sees -> torch-build (cpu_fallback.py)
    object_file_not_recognized, transformer_engine_torch_missing  the linker on a stale object; Transformer Engine
                     without its PyTorch extension (extension_builds.py)
    egl_library_unloadable, egl_devices_lack_gpu, gl_dev_library_for_linker  EGL asked for where no libEGL loads
                     (macOS, Windows, a container, Linux), EGL listing no NVIDIA device, -lEGL/-lGL at link time
                     (graphics.py)
    webui_torch_gpu_check  the web UI's "Torch is not able to use GPU" -> torch-build (launchers.py)
    colab_gpu_check_failed  Colab's "GPU device not found" -> gpu-unused: the runtime's type (notebooks.py)
    cython_module_mixed_builds  "has no attribute '__reduce_cython__'" -> toolchain: two builds of one package mixed
                     (cupy and cupy-cudaXXX) (packages.py)
    app_built_without_cuda, alicevision_needs_cuda_gpu, gromacs_opencl_on_nvidia, chromium_gpu_log  GPU applications'
                     own words: COLMAP or DeePMD-kit without CUDA, Meshroom's "needs a CUDA-Enabled GPU", GROMACS's
                     OpenCL build on an NVIDIA GPU, a Chromium-based application's GPU notices (gpu_apps.py)
    tensorflow_cudnn_not_initialised, tensorboard_with_tensorflow1  "Failed to get convolution algorithm" -> cudnn;
                     TensorBoard 2 over a TensorFlow 1.x (tensorflow.py)
    nvrtc_builtins_of_another_cuda  NVRTC's "builtins: link error" -> libraries: two CUDA toolkits mixed (cuda_sources.py)
    nvcc_fails_in_host_stdlib  nvcc failing inside gcc's libstdc++ headers -> toolchain: a gcc this CUDA supports
                     (toolchain.py)
    torch_arch_list_without_gpu  torch's incompatible-device warning without its sm line ("If you want to use the X GPU
                     with PyTorch", "The current PyTorch install supports CUDA capabilities ...") -> arch: the build for the
                     GPU's architecture (arch.py)
    qiskit_aer_without_gpu, kaldi_configure_mkl_missing  Aer's CPU build asked for the GPU -> qiskit-aer-gpu; Kaldi's
                     configure without MKL (gpu_apps.py)
    gstreamer_element_missing, gstreamer_pipeline_refused  GStreamer's missing element -> its plugin (DeepStream's
                     nvinferserver: the Triton images); not-negotiated and GLib assertions -> not-environment
                     (video_codecs.py)
    package_without_framework_ops  "Open3D was not built with PyTorch support" -> toolchain: a build with those ops
                     (extension_builds.py)
    tflite_delegate_refused, triton_backend_missing  TensorFlow Lite's delegates refusing the model's ops ->
                     not-environment; Triton's missing backend library -> container: the image with it (inference.py)
    zerogpu_cuda_outside_task  ZeroGPU's "CUDA must not be initialized in the main process" -> env; a Space not
                     scheduled for lack of hardware -> container (notebooks.py)
    nvcc_cannot_target_arch, cudarc_toolkit_unknown  candle's "nvcc cannot target gpu arch N" -> arch: a CUDA with
                     that target; cudarc not knowing the toolkit -> toolchain (arch.py, toolchain.py)
    metal_library_refused, ggml_metal_refused  Metal libraries for a newer macOS, without default.metallib or the metal
                     compiler; ggml's Metal backend without a kernel, or not starting (macos_host.py)
    onnxruntime_web_backend_missing, tfjs_node_addon_unloadable  ONNX Runtime Web's bundle without WebGPU; tfjs-node's
                     addon not built, or a DLL it needs missing (inference.py)
    matlab_cuda_driver_missing, ncnn_no_vulkan_device  MATLAB's "The CUDA driver could not be loaded" -> driver; ncnn's
                     Vulkan runtime finding no GPU -> driver (gpu_apps.py)
    cudagraphs_skipped, error_said_ignorable  inductor's "skipping cudagraphs due to ..." and a logged error that says it
                     can be ignored -> not-environment (program.py)
    tpu_busy_or_unloadable  libtpu held by another process -> driver; libtpu.so not loadable -> libraries (jax_stack.py)
    x64_dependency_on_windows_arm64  torch's x86-64-only Windows requirements on Windows ARM64 -> torch-build (packaging.py)
    deepxde_backend_refused, jax_preallocation_on_colab  DeepXDE's backend check -> env (gpu_apps.py); Colab's GPU
                     memory warning with JAX -> env: its preallocation (jax_stack.py)
    onnxruntime_nodes_on_cpu_notice, library_built_without_gpu  ONNX Runtime's nodes-on-CPU warning -> not-environment
                     (inference.py); a library's own "didn't compile with GPU" -> gpu-unused: its GPU build (cpu_fallback.py)
    gpu_choice_not_offered, onnxruntime_sessions_on_cpu  argparse refusing 'cuda' where the choices offer no GPU ->
                     gpu-unused (a GPU under another name -> not-environment); insightface's sessions all on the CPU
                     provider -> gpu-unused: onnxruntime-gpu (cpu_fallback.py)
    ngc_image_older_than_gpu  an NGC container's "GPU not yet supported in this version of the container" -> arch: a
                     newer release of that container (containers.py)

The catalogue's sentences (knowledge/data/error_signatures.json) stay for what only a sentence says; a
rule's priority places it among them (match.find sorts both together).  Fix texts are templates like the
catalogue's: values from the text are filled in (and shell-quoted) by diagnose.

The rules live by layer family: kit (what every rule is made of), packages, loader, codes, driver,
containers, packaging, toolchain, rocm, tensorflow, nccl, arch, capability, torch_release, driver_versions,
gpu_health, runtimes, program, libtorch, installers, install_process, rendezvous, intel_gpu, jetson, interpreter,
scheduler, profiling, graphics, gpu_apps, audio, vision, graphs, workers, inference, compile, allocator, numerics, trainers, windows_host, macos_host, cuda_wheels,
extension_builds, driver_install, gpu_words, launchers, jax_stack, conda_envs, finetune_stack, pip_reports,
distributed_frameworks, cpu_math, rocm_runtime, torch_source_build, notebooks, cuda_toolkit_setup, cuda_sources,
nccl_words, companion_packages, framework_families, windows_accelerators, video_codecs, triton_kernels, driver_tools,
cpu_fallback;
this module gathers them in RULES, in the order they have always run."""

from __future__ import annotations

from torch_envcheck.explain.layer_rules.kit import SOURCES, package_guess
from torch_envcheck.explain.layer_rules.arch import (arch_vs_toolkit, ggml_kernel_without_arch, gpu_arch_needs,
    gpu_beyond_build_targets, gpu_older_than_build)
from torch_envcheck.explain.layer_rules.capability import gpu_below_capability_floor, gpu_lacks_feature
from torch_envcheck.explain.layer_rules.codes import code_advice, error_code
from torch_envcheck.explain.layer_rules.containers import (cdi_device_unresolved, container_cli, k8s_no_gpu_advertised,
    k8s_gpus_unhealthy, nvcc_missing_in_image,
    nvidia_smi_missing_in_container, singularity_without_nv, dataloader_worker_died,
    container_without_gpu, mps_inside_linux_container, wsl_gpu_passthrough, cuda_image_tag_gone,
    container_runtime_reads_no_driver, compose_gpu_devices_rejected, image_for_another_cpu)
from torch_envcheck.explain.layer_rules.driver import (installer_module_not_loaded, dkms_stale_entry,
    mig_instances_in_one_process, allocator_nvml_assert, cuda_after_suspend, kernel_module_not_built,
    device_node_missing, device_node_permission, devices_unavailable_on_windows, driver_older_than_build,
    driver_symbol_missing, gpu_newer_than_build, gpu_only_as_root, intel_graphics_without_nvidia, p2p_through_pcie_switch_hangs,
    platform_without_cuda, slurm_job_without_gpu, device_outside_visible_devices, cluster_cuda_module_not_loaded,
    visible_devices_hide_the_gpu)
from torch_envcheck.explain.layer_rules.driver_versions import (container_driver_floor, driver_module_mismatch,
                                                                nvml_library_mismatch)
from torch_envcheck.explain.layer_rules.pip_reports import wheels_all_skipped, untrusted_index_ignored
from torch_envcheck.explain.layer_rules.torch_source_build import (torch_build_gcc_too_old, cmake_mkl_not_found,
                                                                   nccl1_where_nccl2_needed)
from torch_envcheck.explain.layer_rules.notebooks import (notebook_restart_after_install, vscode_kernel_needs_ipykernel,
                                                          colab_gpu_check_failed)
from torch_envcheck.explain.layer_rules.cuda_toolkit_setup import (apt_unmet_cuda_dependencies, nvcc_not_on_path,
                                                                   windows_cuda_installer_failed, linker_two_sonames,
                                                                   ptxas_not_found, download_url_not_found,
                                                                   nvidia_repository_key, nvcc_not_in_image)
from torch_envcheck.explain.layer_rules.cuda_sources import (cuda_library_member_missing, msvc_stl_rejects_cuda,
                                                             extension_without_gpu_code, tcnn_unknown_compute_capability,
                                                             package_refuses_torch_version, cuda_library_api_removed,
    cuda_runtime_api_removed)
from torch_envcheck.explain.layer_rules.nccl_words import nccl_socket_wrong_type
from torch_envcheck.explain.layer_rules.windows_accelerators import (directml_parameter_refused,
                                                                     rocm_under_wsl_without_amdgpu,
                                                                     triton_intel_without_sycl, directx_device_removed,
                                                                     directml_package_missing, gpu_stack_dll_dependency)
from torch_envcheck.explain.layer_rules.companion_packages import (torchvision_video_backend_missing,
                                                                   torchaudio_codec_symbol, torchscript_custom_op_unknown,
                                                                   companion_torch_pin, torchvision_module_moved,
                                                                   windows_module_dependencies_missing)
from torch_envcheck.explain.layer_rules.framework_families import (keras3_refused, keras3_module_missing,
                                                                   tensorflow_addon_symbol, tensorflow_preload_dll,
                                                                   paddle_third_party_library, paddle_cpu_package,
                                                                   mindspore_cuda_mismatch, hyperv_partition_policy,
                                                                   directml_plugin_not_loaded,
                                                                   tensorflow_kernel_helper_header,
                                                                   paddle_cudnn_older_than_build, lua_module_not_found,
                                                                   cuda_jl_not_initialised)
from torch_envcheck.explain.layer_rules.rocm_runtime import (hsa_status_error, gpu_memory_fault_rocm, host_without_kfd,
                                                             cudnn_frontend_no_plan)
from torch_envcheck.explain.layer_rules.cpu_math import (omp_runtime_twice, mkl_threading_vs_gomp, mkl_cannot_load,
                                                         mkl_service_missing, openblas_in_openmp,
                                                         openblas_threads_refused)
from torch_envcheck.explain.layer_rules.distributed_frameworks import horovod_torch_without_cuda
from torch_envcheck.explain.layer_rules.gpu_health import (driver_sees_no_gpu, gpu_unreachable,
    nvidia_kernel_module_crash, xid_event, gpu_in_error_state, gpu_reset_refused, row_remapping_state,
    fabric_manager_without_nvswitch)
from torch_envcheck.explain.layer_rules.install_process import (install_interrupted, externally_managed,
    certificate_not_trusted, wheel_url_refused, conda_solver_refusals, built_wheel_not_installed)
from torch_envcheck.explain.layer_rules.installers import (uv_resolution_report, poetry_no_candidates,
    conda_arm_variant, index_option_as_requirement, hash_mismatch, wheel_record_mismatch)
from torch_envcheck.explain.layer_rules.libtorch import (cmake_package_not_found, torch_symbols_unresolved_at_link,
    cmake_library_notfound, libtorch_not_on_loader_path, libtorch_without_cuda, cmake_cuda_target_missing,
    cmake_cudnn_not_found, torch_file_format_version, torch_archive_unreadable, windows_build_configuration,
    protoc_older_than_sources, exported_program_refusals, torch_model_file_unreadable, libtorch_cuda_output_false,
    torch_program_platform_link, other_library_in_old_abi, torch_api_not_declared, aten_needs_cxx_standard,
    torch_cmake_library_missing, cmake_package_files_missing, cmake_probe_log, cpp_extension_argument_too_new,
    program_loads_another_libtorch, libtorch_binding_message, libtorch_program_dll_not_found, torchscript_program_error,
    libstdcxx_debug_mode)
from torch_envcheck.explain.layer_rules.loader import (cudnn8_sublibrary_on_windows, libcuda_not_in_linker_cache,
    crash_at_import, import_crash_told, library_page_alignment, missing_library, not_an_elf_library,
    qt_imported_before_torch, glibc_pieces_mixed, mkl_without_itt_symbol, static_tls_exhausted,
    cudart_lookup_of_old_torch, glibc_binary_on_musl)
from torch_envcheck.explain.layer_rules.intel_gpu import (intel_gpu_not_found, extension_needs_torch,
                                                          xpu_free_memory_unsupported)
from torch_envcheck.explain.layer_rules.jetson import l4t_container_without_runtime, jetson_device_nodes
from torch_envcheck.explain.layer_rules.interpreter import stdlib_module_removed, interpreter_without_module
from torch_envcheck.explain.layer_rules.scheduler import (slurm_request_refused, slurm_memory_kill, slurm_step_without_gpu,
    module_unknown)
from torch_envcheck.explain.layer_rules.graphics import (egl_device_for_cuda_missing, egl_platform_device_missing,
    gl_error_code, physx_gpu_launch_failed)
from torch_envcheck.explain.layer_rules.program import (blas_argument_refused, pin_memory_without_accelerator,
    profiler_with_workers, sanitizer_report, tensor_sharing_refused)
from torch_envcheck.explain.layer_rules.companion_packages import torchvision_built_without_codec
from torch_envcheck.explain.layer_rules.numerics import cpu_autocast_dtype, nan_in_output
from torch_envcheck.explain.layer_rules.gpu_words import numba_gpu_below_minimum
from torch_envcheck.explain.layer_rules.runtimes import numba_driver_missing_function
from torch_envcheck.explain.layer_rules.trainers import lightning_accelerator_unavailable, lightning_gpus_requested
from torch_envcheck.explain.layer_rules.program import signal_outside_main_thread, xgboost_data_on_cpu
from torch_envcheck.explain.layer_rules.numerics import grad_scaler_misuse
from torch_envcheck.explain.layer_rules.finetune_stack import flash_attention_2_refused, offloaded_model_moved
from torch_envcheck.explain.layer_rules.extension_builds import torch_extension_not_installed
from torch_envcheck.explain.layer_rules.toolchain import cmake_find_module_failed, make_no_rule_for_cuda_file
from torch_envcheck.explain.layer_rules.containers import docker_daemon_unreachable
from torch_envcheck.explain.layer_rules.inference import (onnx_opset_beyond_exporter, onnx_package_missing,
    onnxruntime_providers_required)
from torch_envcheck.explain.layer_rules.pip_reports import only_yanked_releases
from torch_envcheck.explain.layer_rules.program import nvrtc_source_error
from torch_envcheck.explain.layer_rules.gpu_apps import (app_built_without_cuda, alicevision_needs_cuda_gpu,
                                                         gromacs_opencl_on_nvidia, chromium_gpu_log, qiskit_aer_without_gpu,
                                                         kaldi_configure_mkl_missing)
from torch_envcheck.explain.layer_rules.arch import torch_arch_list_without_gpu, nvcc_cannot_target_arch
from torch_envcheck.explain.layer_rules.inference import (tflite_delegate_refused, triton_backend_missing,
                                                          onnxruntime_web_backend_missing, tfjs_node_addon_unloadable)
from torch_envcheck.explain.layer_rules.macos_host import metal_library_refused, ggml_metal_refused
from torch_envcheck.explain.layer_rules.gpu_apps import matlab_cuda_driver_missing, ncnn_no_vulkan_device
from torch_envcheck.explain.layer_rules.program import cudagraphs_skipped, error_said_ignorable
from torch_envcheck.explain.layer_rules.jax_stack import tpu_busy_or_unloadable, jax_preallocation_on_colab
from torch_envcheck.explain.layer_rules.gpu_apps import deepxde_backend_refused
from torch_envcheck.explain.layer_rules.inference import onnxruntime_nodes_on_cpu_notice
from torch_envcheck.explain.layer_rules.cpu_fallback import (gpu_choice_not_offered, library_built_without_gpu,
    onnxruntime_sessions_on_cpu)
from torch_envcheck.explain.layer_rules.containers import ngc_image_older_than_gpu
from torch_envcheck.explain.layer_rules.packaging import x64_dependency_on_windows_arm64
from torch_envcheck.explain.layer_rules.notebooks import zerogpu_cuda_outside_task
from torch_envcheck.explain.layer_rules.toolchain import cudarc_toolkit_unknown
from torch_envcheck.explain.layer_rules.extension_builds import package_without_framework_ops
from torch_envcheck.explain.layer_rules.video_codecs import gstreamer_element_missing, gstreamer_pipeline_refused
from torch_envcheck.explain.layer_rules.tensorflow import tensorflow_cudnn_not_initialised, tensorboard_with_tensorflow1
from torch_envcheck.explain.layer_rules.cuda_sources import nvrtc_builtins_of_another_cuda
from torch_envcheck.explain.layer_rules.toolchain import nvcc_fails_in_host_stdlib
from torch_envcheck.explain.layer_rules.jax_stack import xla_no_ptx_compiler
from torch_envcheck.explain.layer_rules.program import own_file_shadows_package
from torch_envcheck.explain.layer_rules.cpu_fallback import mixed_precision_needs_gpu
from torch_envcheck.explain.layer_rules.extension_builds import (object_file_not_recognized,
    transformer_engine_torch_missing)
from torch_envcheck.explain.layer_rules.framework_families import (keras_backend_unknown, keras_needs_newer_tensorflow,
    tensorflow_without_keras)
from torch_envcheck.explain.layer_rules.profiling import profiler_events_unmatched
from torch_envcheck.explain.layer_rules.packages import (cython_api_mismatch, tensorflow_abi, torch_module_removed,
                                                         cython_module_mixed_builds)
from torch_envcheck.explain.layer_rules.driver_versions import package_cuda_runtime_too_old, runtime_newer_than_driver
from torch_envcheck.explain.layer_rules.containers import nvml_unloadable_in_plugin, runtime_handler_missing
from torch_envcheck.explain.layer_rules.windows_host import install_path_too_long
from torch_envcheck.explain.layer_rules.extension_builds import extension_built_without_cuda, package_library_missing
from torch_envcheck.explain.layer_rules.gpu_health import device_count_query_failed
from torch_envcheck.explain.layer_rules.graphics import (egl_error, gl_libraries_missing, driver_below_component_floor,
                                                         gl_interop_failed, egl_library_unloadable, egl_devices_lack_gpu,
                                                         gl_dev_library_for_linker)
from torch_envcheck.explain.layer_rules.audio import (torchaudio_ffmpeg_missing, torchaudio_no_backend,
    torchaudio_sox_missing, torchcodec_missing, ctranslate2_compute_type, whisper_fp16_on_cpu)
from torch_envcheck.explain.layer_rules.vision import (select_device_hides_gpu, torchvision_image_warning,
    spconv_cpu_build, nvdec_driver_library)
from torch_envcheck.explain.layer_rules.graphs import dgl_library_for_torch, index_only_distribution
from torch_envcheck.explain.layer_rules.workers import (pickle_for_workers, spawn_reimports_main, start_method_already_set,
    dataloader_option_refused, worker_raised, pin_memory_thread_failed, worker_segfault)
from torch_envcheck.explain.layer_rules.inference import (onnxruntime_provider_library, onnxruntime_tensorrt_provider,
    onnxruntime_cudnn_not_started,
    onnxruntime_trt_decryption, onnx_export_unsupported_operator, openvino_gpu_not_intel, openvino_no_opencl_platform)
from torch_envcheck.explain.layer_rules.compile import (inductor_cxx_compiler_not_found, dynamo_recompile_limit,
    triton_compiler_pass_failed)
from torch_envcheck.explain.layer_rules.allocator import (allocator_config_refused, allocator_alias_warning,
    expandable_segments_ipc)
from torch_envcheck.explain.layer_rules.numerics import (tf32_notice, deterministic_algorithms, flash_attention_dtype,
    loss_scale_skipped_step)
from torch_envcheck.explain.layer_rules.trainers import (extension_jit_build_failed, deepspeed_op_unavailable,
    accelerate_launch_defaults, accelerate_bf16_unavailable, device_map_refused)
from torch_envcheck.explain.layer_rules.windows_host import (store_python_alias, store_python_protected,
    build_tool_not_started, torch_dll_without_code)
from torch_envcheck.explain.layer_rules.macos_host import (dyld_library_not_loaded, openmp_runtime_not_linked,
    mps_fallback_notice, metal_plugin_mismatch, nvidia_library_on_macos, mps_bfloat16_refused)
from torch_envcheck.explain.layer_rules.driver_tools import tool_not_found, smi_field_unknown
from torch_envcheck.explain.layer_rules.cpu_fallback import library_fell_back_to_cpu
from torch_envcheck.explain.layer_rules.extension_builds import (inline_source_error, module_init_missing,
                                                                 package_cuda_module_missing, compiler_killed)
from torch_envcheck.explain.layer_rules.jax_stack import (jax_jaxlib_mismatch, pip_extra_not_provided,
                                                          jaxlib_cuda_version_not_found, xla_out_of_memory)
from torch_envcheck.explain.layer_rules.conda_envs import (conda_plan_cpu_build, conda_dependency_range,
                                                           conda_resolve_package_not_found)
from torch_envcheck.explain.layer_rules.finetune_stack import (trainer_bf16_refused, quantization_needs_packages,
                                                               torchao_extensions_skipped, torch_extension_wheel_not_found,
                                                               name_missing_from_package)
from torch_envcheck.explain.layer_rules.gpu_words import (capability_refused_in_words, llvm_unknown_processor,
                                                          hip_no_kernel_image)
from torch_envcheck.explain.layer_rules.launchers import (venv_without_pip, import_halted, nan_check_refused,
                                                          webui_torch_gpu_check)
from torch_envcheck.explain.layer_rules.driver_install import (module_insert_refused, driver_not_loaded_told,
                                                               installer_gpu_not_supported, persistenced_cannot_start)
from torch_envcheck.explain.layer_rules.cuda_wheels import (nvidia_wheel_pin_conflict, nvidia_wheel_not_served,
    nccl_without_gpu_arch)
from torch_envcheck.explain.layer_rules.profiling import (gpu_counters_restricted, cupti_subscriber_taken,
    cupti_library_not_found, nvprof_on_ampere, nvml_query_not_supported, nvml_function_missing, pynvml_missing)
from torch_envcheck.explain.layer_rules.nccl import (nccl_ib_async_event, nccl_ib_completion, nccl_shared_memory_limit,
    nccl_transport, nccl_watchdog, nccl_ibv_call_failed, nccl_ofi_without_efa)
from torch_envcheck.explain.layer_rules.packages import (abi_tag, built_for, cxx_runtime_symbol,
    jit_extension_missing, library_symbol, numpy_c_api_capsule, package_binary_missing,
    package_compiled_part_missing, package_dll_load_failed, package_extension_not_loaded, package_ops_registration_fails,
    package_version_range, package_op_without_backend, cupy_for_another_cuda, numpy_api_version, torch_abi,
    package_own_symbol_missing, companion_cuda_differs)
from torch_envcheck.explain.layer_rules.packaging import (conda_virtual_cuda, cuda_package_on_mac,
    cuda_unavailable_cpu_build, device_type_unknown, package_without_cuda, jetson_without_cuda, pip_no_matching,
    pip_of_another_python, pip_usage_error, torch_build_variant, torch_not_offered_on_mac, torch_too_new_for_intel_mac,
    conda_environment_missing, namespace_package_shadow, torch_placeholder_sdist, torch_without_backend,
    wheel_tags_not_here, pip_replaces_torch, resolver_conflict_report, nvidia_stub_no_wheel, conda_usage_error,
    torchsharp_without_libtorch, cuda_available_in_another_run, torch_not_in_this_python, env_var_path_not_found,
    conda_package_cache_corrupt, conda_channel_http_error, pytorch_name_on_pypi, conda_finds_no_pytorch)
from torch_envcheck.explain.layer_rules.program import (conv_input_channels, frozen_app_import, index_past_size,
    cuda_in_forked_child, child_killed_by_oom, lightning_gpu_setting,
    mps_array_over_4gb, autocast_refused, sdpa_no_kernel, xformers_inputs_refused, half_precision_on_cpu,
    vllm_memory_taken_at_start, op_input_size_check, pickled_model_module_missing, save_write_failed,
    generator_device_mismatch)
from torch_envcheck.explain.layer_rules.video_codecs import (nvenc_api_newer_than_driver,
                                                             ffmpeg_codec_not_built, nvenc_session_refused,
                                                             torchvision_gpu_decoder_missing)
from torch_envcheck.explain.layer_rules.triton_kernels import (triton_kernel_source_error, ptxas_register_allocation,
                                                               gpu_family_instruction, torch_pins_triton,
                                                               triton_older_than_cuda)
from torch_envcheck.explain.layer_rules.runtimes import (jax_cuda_library_not_found, jaxlib_without_cuda, onnxruntime_cpu_only,
    onnxruntime_cuda_libraries, framework_cpu_build, jax_pjrt_plugin_mismatch, tensorrt_version_mismatch,
    jax_xla_compiler_pieces, jax_cuda_library_too_old, ggml_binary_archs, llm_runtime_cpu_only, launcher_finds_no_gpu,
    bitsandbytes_cpu_library_beside_gpu, llama_cpp_python_cpu_build,
    tensorrt_engine_version, tensorrt_unsupported_sm, xla_cudnn_version)
from torch_envcheck.explain.layer_rules.rendezvous import (rendezvous_unreachable, env_rendezvous_variable_missing,
    tcpstore_without_libuv, nccl_versions_differ, nccl_hang_after_plugin_line, backend_not_built, ordinal_from_local_rank)
from torch_envcheck.explain.layer_rules.rocm import (miopen_missing_kernel_database, rocblas_on_windows,
    rocm_kfd_permission, zluda_dll_dependency, rccl_iommu_pt_missing)
from torch_envcheck.explain.layer_rules.torch_release import (compile_refused_on_windows, compile_unsupported_python,
    package_needs_newer_torch, nightly_regression, inductor_cuda_probe_logged,
    torch_attribute_missing, torch_load_weights_only, torch_cuda_older_than_gpu, build_without_device_type)
from torch_envcheck.explain.layer_rules.tensorflow import (xla_registration_notices, tensorflow_self_check_dll,
                                                           tensorflow_error_class, tensorflow_libcuda_not_found, tensorflow_missing_cuda_runtime,
    dnn_library_init_failed,
    tensorflow_optional_tensorrt, tensorflow_sees_no_gpu, tensorflow_windows_native)
from torch_envcheck.explain.layer_rules.toolchain import (build_finds_no_toolkit, companion_version_range,
    build_option_left_out, optional_kernels_notice, package_asks_for_pin,
    cmake_compiler_detection, header_missing,
    inductor_on_native_windows, nvcc_host_compiler, openmp_with_apple_clang, setuptools_without_pkg_resources_packaging,
    toolkit_not_torch_cuda, torch_extension_build_failed, triton_exception, triton_of_another_api, xla_ptxas,
    foreign_arch_compiler_flag, homebrew_refuses, windows_cuda_toolset_missing, cpp_extension_compiler_bounds,
    cuda_arch_unknown_to_torch, nvcc_output_missing, build_isolation_without_torch,
    linker_skips_incompatible_library, setup_py_install_refused, static_library_without_pic)

# the names other modules read from here (explain.reading: SOURCES, code_advice, package_guess)
__all__ = ("RULES", "find", "LAYERS_PRODUCED", "SOURCES", "code_advice", "package_guess")


# The layers the rules give (with the catalogue's, every layer of catalogue.LAYERS is reachable).
LAYERS_PRODUCED = frozenset({"c-runtime", "toolchain", "torch-build", "macos", "libraries", "cudnn", "driver", "container",
                             "wsl", "windows-runtime", "env", "rocm", "arch", "distributed", "not-environment"})


RULES = (abi_tag, torch_abi, built_for, library_symbol, cxx_runtime_symbol, missing_library, error_code, gpu_newer_than_build,
         platform_without_cuda, pip_no_matching, allocator_nvml_assert, wsl_gpu_passthrough, tensorflow_windows_native,
         device_node_permission, torch_not_offered_on_mac, rocblas_on_windows, zluda_dll_dependency,
         rocm_kfd_permission, container_cli, pip_of_another_python, container_without_gpu, nccl_transport,
         cuda_after_suspend, toolkit_not_torch_cuda, torch_too_new_for_intel_mac, mps_inside_linux_container,
         package_binary_missing, p2p_through_pcie_switch_hangs, devices_unavailable_on_windows, driver_older_than_build,
         tensorflow_missing_cuda_runtime, package_ops_registration_fails, visible_devices_hide_the_gpu, header_missing,
         nvcc_host_compiler, triton_exception, gpu_only_as_root,
         tensorflow_sees_no_gpu, torch_build_variant, inductor_on_native_windows,
         package_compiled_part_missing, device_node_missing, package_extension_not_loaded, jetson_without_cuda,
         cudnn8_sublibrary_on_windows, cmake_compiler_detection, tensorflow_error_class, dnn_library_init_failed, cuda_package_on_mac,
         numpy_c_api_capsule, jit_extension_missing, gpu_below_capability_floor,
         tensorflow_optional_tensorrt, gpu_arch_needs, driver_module_mismatch, container_driver_floor,
         cdi_device_unresolved, openmp_with_apple_clang, xla_ptxas, xid_event, gpu_unreachable, arch_vs_toolkit,
         xla_cudnn_version, onnxruntime_cpu_only, tensorrt_engine_version, tensorrt_unsupported_sm, nccl_ib_completion,
         conda_virtual_cuda, k8s_no_gpu_advertised, cuda_unavailable_cpu_build,
         package_dll_load_failed, package_version_range, conv_input_channels, index_past_size, mps_array_over_4gb,
         nccl_shared_memory_limit, device_type_unknown, package_without_cuda,
         nvidia_smi_missing_in_container, singularity_without_nv, dataloader_worker_died, not_an_elf_library,
         tensorflow_libcuda_not_found, package_op_without_backend, cupy_for_another_cuda,
         miopen_missing_kernel_database, jax_cuda_library_not_found,
         numpy_api_version,
         setuptools_without_pkg_resources_packaging, package_needs_newer_torch, torch_attribute_missing,
         torch_load_weights_only, compile_refused_on_windows, nvidia_kernel_module_crash,
         intel_graphics_without_nvidia, driver_symbol_missing, ggml_kernel_without_arch, torch_extension_build_failed,
         onnxruntime_cuda_libraries, libcuda_not_in_linker_cache, pip_usage_error, gpu_older_than_build, gpu_beyond_build_targets,
         library_page_alignment, slurm_job_without_gpu, conda_environment_missing, torch_placeholder_sdist,
         torch_without_backend, foreign_arch_compiler_flag, homebrew_refuses, windows_cuda_toolset_missing,
         compile_unsupported_python, cpp_extension_compiler_bounds, cuda_arch_unknown_to_torch,
         device_outside_visible_devices, crash_at_import, nvcc_output_missing, frozen_app_import,
         namespace_package_shadow, jaxlib_without_cuda, wheel_tags_not_here, build_isolation_without_torch,
         pip_replaces_torch, resolver_conflict_report, nightly_regression, nvidia_stub_no_wheel,
         inductor_cuda_probe_logged, driver_sees_no_gpu, linker_skips_incompatible_library,
         setup_py_install_refused, conda_usage_error, torchsharp_without_libtorch, cuda_available_in_another_run,
         cluster_cuda_module_not_loaded, torch_not_in_this_python, qt_imported_before_torch, nccl_ib_async_event,
         framework_cpu_build, jax_pjrt_plugin_mismatch, tensorrt_version_mismatch, build_finds_no_toolkit,
         companion_version_range, gpu_in_error_state, env_var_path_not_found, jax_xla_compiler_pieces,
         build_option_left_out, jax_cuda_library_too_old, cuda_image_tag_gone, container_runtime_reads_no_driver,
         conda_package_cache_corrupt, conda_channel_http_error, kernel_module_not_built, optional_kernels_notice,
         package_asks_for_pin, cuda_in_forked_child, child_killed_by_oom, lightning_gpu_setting, ggml_binary_archs,
         llm_runtime_cpu_only, launcher_finds_no_gpu, bitsandbytes_cpu_library_beside_gpu, import_crash_told,
         pytorch_name_on_pypi, conda_finds_no_pytorch, gpu_lacks_feature, autocast_refused, sdpa_no_kernel,
         xformers_inputs_refused, cmake_package_not_found, torch_symbols_unresolved_at_link, cmake_library_notfound,
         libtorch_not_on_loader_path, libtorch_without_cuda, cmake_cuda_target_missing, cmake_cudnn_not_found,
         torch_file_format_version, torch_archive_unreadable, windows_build_configuration, protoc_older_than_sources,
         exported_program_refusals, glibc_pieces_mixed, torch_model_file_unreadable, libtorch_cuda_output_false,
         torch_program_platform_link, other_library_in_old_abi, torch_api_not_declared, aten_needs_cxx_standard,
         torch_cmake_library_missing, cmake_package_files_missing, cmake_probe_log, cpp_extension_argument_too_new,
         program_loads_another_libtorch, mkl_without_itt_symbol, libtorch_binding_message,
         libtorch_program_dll_not_found, torchscript_program_error, libstdcxx_debug_mode, nccl_watchdog,
         triton_of_another_api, uv_resolution_report, poetry_no_candidates, conda_arm_variant,
         index_option_as_requirement, hash_mismatch, wheel_record_mismatch, install_interrupted, externally_managed,
         certificate_not_trusted, wheel_url_refused, conda_solver_refusals, built_wheel_not_installed,
         rendezvous_unreachable, env_rendezvous_variable_missing, tcpstore_without_libuv, nccl_versions_differ,
         nccl_hang_after_plugin_line, rccl_iommu_pt_missing, static_tls_exhausted, intel_gpu_not_found,
         extension_needs_torch, half_precision_on_cpu, l4t_container_without_runtime, jetson_device_nodes,
         gpu_reset_refused, row_remapping_state, fabric_manager_without_nvswitch, package_own_symbol_missing,
         vllm_memory_taken_at_start, llama_cpp_python_cpu_build, stdlib_module_removed, interpreter_without_module,
         slurm_request_refused, slurm_memory_kill, slurm_step_without_gpu, module_unknown, backend_not_built, nccl_ibv_call_failed,
         cudart_lookup_of_old_torch, k8s_gpus_unhealthy, nvcc_missing_in_image, glibc_binary_on_musl,
         mig_instances_in_one_process, gpu_counters_restricted, cupti_subscriber_taken, cupti_library_not_found,
         nvprof_on_ampere, nvml_query_not_supported, nvml_function_missing, pynvml_missing,
         installer_module_not_loaded, dkms_stale_entry, nccl_ofi_without_efa, egl_error, gl_libraries_missing,
         driver_below_component_floor, torchaudio_ffmpeg_missing, torchaudio_no_backend, torchaudio_sox_missing,
         torchcodec_missing, ctranslate2_compute_type, whisper_fp16_on_cpu, companion_cuda_differs,
         select_device_hides_gpu, torchvision_image_warning, spconv_cpu_build, nvdec_driver_library,
         static_library_without_pic, dgl_library_for_torch, index_only_distribution, op_input_size_check,
         pickle_for_workers, spawn_reimports_main, start_method_already_set, dataloader_option_refused, worker_raised,
         pin_memory_thread_failed, worker_segfault, onnxruntime_provider_library, onnxruntime_tensorrt_provider,
         onnxruntime_cudnn_not_started, onnxruntime_trt_decryption, onnx_export_unsupported_operator, openvino_gpu_not_intel,
         openvino_no_opencl_platform, inductor_cxx_compiler_not_found, dynamo_recompile_limit,
         triton_compiler_pass_failed, pickled_model_module_missing, save_write_failed,
         allocator_config_refused, allocator_alias_warning, expandable_segments_ipc, tf32_notice,
         deterministic_algorithms, flash_attention_dtype, loss_scale_skipped_step, extension_jit_build_failed,
         deepspeed_op_unavailable, accelerate_launch_defaults, accelerate_bf16_unavailable, device_map_refused,
         store_python_alias, store_python_protected, build_tool_not_started, torch_dll_without_code,
         dyld_library_not_loaded, openmp_runtime_not_linked, mps_fallback_notice, metal_plugin_mismatch,
         nvidia_wheel_pin_conflict, nvidia_wheel_not_served, nccl_without_gpu_arch, inline_source_error,
         module_init_missing, xla_registration_notices, package_cuda_module_missing, compiler_killed,
         module_insert_refused, driver_not_loaded_told, installer_gpu_not_supported, persistenced_cannot_start,
         capability_refused_in_words, llvm_unknown_processor, hip_no_kernel_image, venv_without_pip, import_halted,
         nan_check_refused, jax_jaxlib_mismatch, pip_extra_not_provided, jaxlib_cuda_version_not_found,
         xla_out_of_memory, conda_plan_cpu_build, conda_dependency_range, conda_resolve_package_not_found,
         tensorflow_self_check_dll, trainer_bf16_refused, quantization_needs_packages, torchao_extensions_skipped,
         torch_extension_wheel_not_found, name_missing_from_package, wheels_all_skipped, untrusted_index_ignored,
         horovod_torch_without_cuda, nvml_library_mismatch, omp_runtime_twice, mkl_threading_vs_gomp, mkl_cannot_load,
         mkl_service_missing, openblas_in_openmp, openblas_threads_refused, hsa_status_error, gpu_memory_fault_rocm,
         host_without_kfd, cudnn_frontend_no_plan, torch_build_gcc_too_old, cmake_mkl_not_found, nccl1_where_nccl2_needed,
         notebook_restart_after_install, vscode_kernel_needs_ipykernel,
         apt_unmet_cuda_dependencies, nvcc_not_on_path, windows_cuda_installer_failed, linker_two_sonames,
         ptxas_not_found, download_url_not_found, cuda_library_member_missing, msvc_stl_rejects_cuda,
         extension_without_gpu_code, tcnn_unknown_compute_capability, package_refuses_torch_version,
         nccl_socket_wrong_type, gl_interop_failed, torchvision_video_backend_missing,
         torchaudio_codec_symbol, torchscript_custom_op_unknown, companion_torch_pin, torchvision_module_moved,
         windows_module_dependencies_missing, keras3_refused, keras3_module_missing, tensorflow_addon_symbol,
         tensorflow_preload_dll, paddle_third_party_library, paddle_cpu_package, mindspore_cuda_mismatch,
         hyperv_partition_policy, nvidia_repository_key, nvcc_not_in_image, cuda_library_api_removed, cuda_runtime_api_removed,
         directml_plugin_not_loaded, tensorflow_kernel_helper_header, directml_parameter_refused,
         rocm_under_wsl_without_amdgpu, triton_intel_without_sycl, torch_cuda_older_than_gpu, directx_device_removed,
         directml_package_missing, gpu_stack_dll_dependency, xpu_free_memory_unsupported, paddle_cudnn_older_than_build,
         lua_module_not_found, cuda_jl_not_initialised,
         compose_gpu_devices_rejected, image_for_another_cpu, ordinal_from_local_rank, nvidia_library_on_macos,
         generator_device_mismatch, nvenc_api_newer_than_driver, ffmpeg_codec_not_built,
         nvenc_session_refused, torchvision_gpu_decoder_missing, triton_kernel_source_error, ptxas_register_allocation,
         gpu_family_instruction, torch_pins_triton, triton_older_than_cuda, tool_not_found, smi_field_unknown,
         build_without_device_type, library_fell_back_to_cpu, mps_bfloat16_refused, egl_device_for_cuda_missing,
         egl_platform_device_missing, gl_error_code, physx_gpu_launch_failed, blas_argument_refused,
         device_count_query_failed, extension_built_without_cuda, install_path_too_long, package_library_missing,
         sanitizer_report, profiler_events_unmatched, torch_module_removed,
         cython_api_mismatch, runtime_newer_than_driver, package_cuda_runtime_too_old,
         runtime_handler_missing, nvml_unloadable_in_plugin, tensorflow_abi, torchvision_built_without_codec,
         tensor_sharing_refused, profiler_with_workers, pin_memory_without_accelerator, cpu_autocast_dtype,
         onnx_opset_beyond_exporter, onnx_package_missing, only_yanked_releases, nvrtc_source_error,
         xla_no_ptx_compiler, keras_needs_newer_tensorflow, keras_backend_unknown, tensorflow_without_keras,
         own_file_shadows_package, mixed_precision_needs_gpu, object_file_not_recognized, transformer_engine_torch_missing,
         nan_in_output, numba_gpu_below_minimum, numba_driver_missing_function, lightning_gpus_requested,
         lightning_accelerator_unavailable, signal_outside_main_thread, grad_scaler_misuse, flash_attention_2_refused,
         torch_extension_not_installed, cmake_find_module_failed, make_no_rule_for_cuda_file, docker_daemon_unreachable,
         xgboost_data_on_cpu, onnxruntime_providers_required, offloaded_model_moved, egl_library_unloadable,
         egl_devices_lack_gpu, gl_dev_library_for_linker, webui_torch_gpu_check, colab_gpu_check_failed,
         cython_module_mixed_builds, app_built_without_cuda, alicevision_needs_cuda_gpu, gromacs_opencl_on_nvidia,
         chromium_gpu_log, tensorflow_cudnn_not_initialised, tensorboard_with_tensorflow1,
         nvrtc_builtins_of_another_cuda, nvcc_fails_in_host_stdlib, torch_arch_list_without_gpu, qiskit_aer_without_gpu,
         kaldi_configure_mkl_missing, gstreamer_element_missing, gstreamer_pipeline_refused,
         package_without_framework_ops, tflite_delegate_refused, triton_backend_missing, zerogpu_cuda_outside_task,
         nvcc_cannot_target_arch, cudarc_toolkit_unknown, metal_library_refused, ggml_metal_refused,
         onnxruntime_web_backend_missing, tfjs_node_addon_unloadable, matlab_cuda_driver_missing, ncnn_no_vulkan_device,
         cudagraphs_skipped, error_said_ignorable, tpu_busy_or_unloadable, x64_dependency_on_windows_arm64,
         deepxde_backend_refused, jax_preallocation_on_colab, onnxruntime_nodes_on_cpu_notice, library_built_without_gpu,
         gpu_choice_not_offered, onnxruntime_sessions_on_cpu, ngc_image_older_than_gpu)


def find(text: str, ent, failures: list | None = None) -> list:
    """Every rule's match for the entities of `text` (cleaned), unordered.  A rule that raises is left out, so that
    one faulty rule costs its own answer and not the whole reading; (rule name, error) goes to `failures` when given
    (the tests assert none fails on the corpus)."""
    out = []
    for rule in RULES:
        try:
            m = rule(ent, text)
        except Exception as exc:  # noqa: BLE001 - a rule's bug must not take explain down with it
            if failures is not None:
                failures.append((rule.__name__, f"{type(exc).__name__}: {exc}"))
            continue
        if m is not None:
            out.append(m)
    return out
