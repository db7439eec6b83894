# lit configuration for incant's tool-output tests (test/<command>/*.test).
import os
import lit.formats

config.name = "incant"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.incant_bin), "..", "test")
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.environment["PATH"] = os.pathsep.join(
    [config.incant_bin, config.filecheck_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%incant", os.path.join(config.incant_bin, "incant")))
config.substitutions.append(("%src", config.incant_src))
config.substitutions.append(("%models", os.path.join(config.incant_src, "models")))
config.substitutions.append(("%litmus", os.path.join(config.incant_src, "litmus")))
# Runs a command with standard error on a terminal (progress lines).
config.substitutions.append(("%ontty", "python3 " + os.path.join(config.test_source_root, "Inputs", "on-tty.py")))
# incant stress: the fake programs (unittests/AppTest, unittests/Intercept)
# and the injected library.
config.substitutions.append(("%fakeapp", os.path.join(config.test_bin, "incant-fakeapp")))
config.substitutions.append(("%fakecudaapp", os.path.join(config.test_bin, "incant-fakecudaapp")))
config.substitutions.append(("%fakecuda", os.path.join(config.test_bin, "fakecuda")))
config.substitutions.append(("%injectlib", config.inject_lib))
config.substitutions.append(("%fakefenceapp-fenced", os.path.join(config.test_bin, "incant-fakefenceapp-fenced")))
config.substitutions.append(("%fakefenceapp", os.path.join(config.test_bin, "incant-fakefenceapp")))

# "libclang": incant reads source structure (host launches, statement
# boundaries): built with libclang's headers and the library is here. Where
# incant says that it cannot read this machine's CUDA headers (a note
# quoting clang), the feature is left out and lit says why; a probe that
# reads no launch and gives no reason is a fault, left to the tests.
import ctypes
import subprocess
def _libclang_reads_cuda():
    _incant = os.path.join(config.incant_bin, "incant")
    _probe = os.path.join(config.test_source_root, "Inputs", "launch-probe.cu")
    try:
        _help = subprocess.run([_incant, "race", "--help"], capture_output=True,
                               text=True, timeout=60).stdout
        if "--kernel" not in _help:
            return True  # no static race checker to probe with
        _r = subprocess.run([_incant, "race", _probe], capture_output=True,
                            text=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return True
    _note = [l for l in _r.stderr.splitlines() if "note:" in l]
    if "launch:" not in _r.stdout and _note:
        lit_config.warning("tests that read host code are unsupported here: " +
                           _note[0])
        return False
    return True
if getattr(config, "have_libclang", False):
    for _lib in ("libclang-14.so.1", "libclang.so.1"):
        try:
            ctypes.CDLL(_lib)
            if _libclang_reads_cuda():
                config.available_features.add("libclang")
            break
        except OSError:
            pass

# A feature per command the tool was built with ("cmd-campaign"): a command
# left out for want of an optional library marks its tests unsupported
# (test/<command>/lit.local.cfg).
import re
try:
    _help = subprocess.run([os.path.join(config.incant_bin, "incant"), "--help"],
                           capture_output=True, text=True, timeout=60).stdout
except (OSError, subprocess.SubprocessError) as e:
    lit_config.fatal("cannot run incant --help: %s" % e)
_subs = _help.split("Subcommands:", 1)[1] if "Subcommands:" in _help else ""
for _m in re.finditer(r"^  ([a-z][a-z-]*) ", _subs, re.M):
    config.available_features.add("cmd-" + _m.group(1))
if "cmd-check" not in config.available_features:
    lit_config.fatal("incant --help lists no commands:\n" + _help)
