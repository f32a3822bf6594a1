"""The crawler's gRPC API from Python, for tests that talk to a service the way another program
(or an attacker) would: the Python stubs are generated from proto/ at test time with Debian's
protoc and grpc_python_plugin, into a directory of the test's own; nothing generated is kept.
Needs python3-grpcio and python3-protobuf (Debian's /usr/bin/python3)."""

import glob
import importlib
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def generate(out_dir, protoc="/usr/bin/protoc", plugin="/usr/bin/grpc_python_plugin"):
    """Writes crawler/v1/*_pb2(_grpc).py under `out_dir`, puts it on sys.path and returns the
    package crawler.v1 (its modules: v1.admin_pb2, v1.frontier_pb2_grpc, ...)."""
    os.makedirs(out_dir, exist_ok=True)
    proto_dir = os.path.join(REPO, "proto")
    protos = sorted(glob.glob(os.path.join(proto_dir, "crawler", "v1", "*.proto")))
    subprocess.run([protoc, f"--proto_path={proto_dir}", "--proto_path=/usr/include",
                    f"--python_out={out_dir}", f"--grpc_python_out={out_dir}",
                    f"--plugin=protoc-gen-grpc_python={plugin}"] +
                   [os.path.relpath(p, proto_dir) for p in protos], check=True)
    sys.path.insert(0, out_dir)
    names = [os.path.basename(p)[:-len(".proto")] for p in protos]
    modules = {}
    for name in names:
        modules[f"{name}_pb2"] = importlib.import_module(f"crawler.v1.{name}_pb2")
        modules[f"{name}_pb2_grpc"] = importlib.import_module(f"crawler.v1.{name}_pb2_grpc")
    return type("v1", (), modules)
