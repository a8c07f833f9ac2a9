#!/usr/bin/env bash
# TAP: runs test_numpy.py with Debian's /usr/bin/python3, whose numpy comes
# from python3-numpy (./tessel installs it). A missing interpreter is a
# failed case, as is a missing numpy (test_numpy.py reports that).
py=/usr/bin/python3
if [[ ! -x "$py" ]]; then
  echo "not ok 1 - $py exists (Debian python3 with python3-numpy: ./tessel installs them)"
  echo "1..1"
  exit 1
fi
exec "$py" "$(dirname "${BASH_SOURCE[0]}")/test_numpy.py"
