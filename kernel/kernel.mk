# Kernel targets, included by the top-level Makefile. Recipes live in scripts
# under kernel/ so that they can be run and tested on their own.

.PHONY: kernel lab kernel-test notebooks

# Build the gophernotes kernel with tailscope preloaded and install the
# tailscope-go kernelspec for the current user.
kernel:
	kernel/deps.sh
	kernel/build.sh
	kernel/install.sh

# Start Jupyter (JupyterLab if installed, else the classic notebook server).
lab: kernel
	kernel/lab.sh

# Jupyter-protocol smoke test of a freshly built kernel (temporary kernelspec).
kernel-test:
	kernel/kernel-test.sh

# Execute every notebook headless at SCALE (ci, quick or paper); notebook
# 06 runs ns-3, so ns-3 is installed first.
SCALE ?= ci
notebooks: kernel ns3
	kernel/run-notebooks.sh $(SCALE)
