# A file that forgot its function.
import tvm
from tvm.script import tir as T

x = 1
