/* tests/cuda/emu: float16 is not emulated (a program using it does not compile). */
