"""`pip install .` from the repository root, as a user runs it, into a scratch target; then the NumPy tests
against the installed package (not the build tree). CPU-only (XPOSE_CUDA=OFF) so that CI does not compile
the CUDA kernels a second time; the GPU machine's scripts/gpu-check installs the CUDA build the same way.

Usage: check_pip_install.py SOURCE_DIR WORK_DIR   (tests/CMakeLists.txt: test `python_pip_install`)
"""
import os
import shutil
import subprocess
import sys

source, work = sys.argv[1], sys.argv[2]
site = os.path.join(work, "site")
shutil.rmtree(site, ignore_errors=True)
command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--target", site,
           source, "-Ccmake.define.XPOSE_CUDA=OFF", f"-Cbuild-dir={os.path.join(work, 'build')}"]
print("+", " ".join(command), flush=True)
subprocess.run(command, check=True)
env = dict(os.environ, PYTHONPATH=site)
# Run from the scratch directory so that nothing imports the source tree's python/xpose by accident.
check = "import xpose, os; assert os.path.dirname(xpose.__file__).startswith(%r), xpose.__file__" % site
subprocess.run([sys.executable, "-c", check], check=True, env=env, cwd=work)
tests = os.path.join(source, "python", "tests", "test_numpy.py")
sys.exit(subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", tests], env=env, cwd=work).returncode)
