/* tests/cuda/emu: bfloat16 is not emulated (a program using it does not compile). */
