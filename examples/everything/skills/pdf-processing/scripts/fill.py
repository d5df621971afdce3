"""Fills the fields of a PDF form: `fill.py form.pdf name=value ...`."""
import sys

if __name__ == "__main__":
    print("would fill", sys.argv[1], "with", sys.argv[2:])
