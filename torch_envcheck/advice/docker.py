"""The official pytorch/pytorch container image that fits a machine: the torch and CUDA that advise
picks for its driver and GPUs, tagged `<torch>-cuda<X.Y>-cudnn<N>-runtime|devel`
(data/docker_images.json names the sources of the scheme).  `devel` carries nvcc and the CUDA
headers, so it is the one to pick when extensions must compile inside the container."""

from __future__ import annotations

from torch_envcheck import knowledge
from torch_envcheck._util import escape


def image(rec: dict, devel: bool = False, machine: str | None = None) -> dict:
    """{'image', 'reasons'} for a recommendation from advice.recommend.recommend(); 'image' is None with
    the reason when no official image fits (a CPU or macOS machine, an arm64 devel image)."""
    table = knowledge.load_table("docker_images.json")
    reasons = []
    if rec.get("kind") != "cuda":
        return {"image": None, "reasons": ["the official pytorch/pytorch images are CUDA builds for Linux; for "
                                           "this machine use a python image and the pip command of `advise`"]}
    kind = "devel" if devel else "runtime"
    arch = {"x86_64": "linux/amd64", "AMD64": "linux/amd64", "aarch64": "linux/arm64", "arm64": "linux/arm64"}.get(
        machine or "x86_64", "linux/amd64")
    if arch not in table["kinds"][kind]:
        return {"image": None, "reasons": [f"no official {kind} image is published for {arch} (only "
                                           f"{', '.join(table['kinds'][kind])}); use the runtime image and install "
                                           "the CUDA toolkit in it to compile extensions"]}
    release = knowledge.release_key(rec.get("torch"))
    patch = table["latest_patch"].get(release)
    rel = knowledge.release(release) or {}
    build = next((b for b in rel.get("builds", []) if b.get("tag") == rec.get("tag")), {})
    cudnn = knowledge.version_tuple(build.get("cudnn"))
    if not (patch and cudnn and rec.get("cuda")):
        return {"image": None, "reasons": [f"the image tables do not know torch {release} with {rec.get('tag')}"]}
    tag = table["tag_template"].format(torch=patch, cuda=rec["cuda"], cudnn_major=cudnn[0], kind=kind)
    reasons.append(f"pytorch/pytorch:{tag}: torch {patch} with CUDA {rec['cuda']} and cuDNN {cudnn[0]}, the build "
                   "advise picks for this driver and GPU"
                   + ("; devel has nvcc and the CUDA headers for compiling extensions" if devel else
                      "; runtime has no compiler (use --devel to compile extensions inside it)"))
    return {"image": f"pytorch/pytorch:{tag}", "reasons": reasons}


def run_line(image_name: str, workdir: str | None = None) -> str:
    """The `docker run` line: GPU access through the NVIDIA container toolkit (`--gpus all`), and
    the shared memory DataLoader workers need (Docker's default /dev/shm is 64 MB)."""
    words = ["docker", "run", "--gpus", "all", "--ipc=host", "-it", "--rm"]
    if workdir:
        words += ["-v", f"{workdir}:/workspace", "-w", "/workspace"]
    words += [image_name, "python", "-c", "import torch; print(torch.__version__, torch.cuda.is_available())"]
    return escape.shell_join(words, "posix")
