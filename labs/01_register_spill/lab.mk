# register_spill shows the spills ptxas reported for each kernel: ptxas_report.sh compiles the
# lab once more with -Xptxas -v, for the same architectures, and writes register_spill_ptxas.h,
# where the lab finds it (it builds without it too: spills unknown).
REGISTER_SPILL_PTXAS := $(OUT)/generated/register_spill/register_spill_ptxas.h
NVFLAGS_register_spill += -I$(dir $(REGISTER_SPILL_PTXAS))

$(OUT)/labs/register_spill: $(REGISTER_SPILL_PTXAS)

$(REGISTER_SPILL_PTXAS): labs/01_register_spill/register_spill.cu labs/01_register_spill/ptxas_report.sh $(HEADERS)
	sh labs/01_register_spill/ptxas_report.sh $@ $(NVCC) $< $(NVFLAGS)
