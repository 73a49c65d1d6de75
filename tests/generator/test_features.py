"""The CPU-feature table is the one source of feature names: every emitter names only
known features, the runtime detects every one, and the documented AESGEN_CPU_DISABLE
list is the table's."""

import re
import unittest

from aesgen import features, pipeline
from aesgen.emit import EMITTERS

ROOT = pipeline.ROOT


class FeatureTable(unittest.TestCase):
    def test_emitters_name_known_features(self):
        for name, em in EMITTERS.items():
            unknown = set(em.cpu_features) - set(features.BY_NAME)
            self.assertFalse(unknown, f"emitter {name}: {unknown}")

    def test_the_runtime_detects_every_feature(self):
        cpu = (ROOT / "runtime" / "src" / "cpu.c").read_text()
        for f in features.FEATURES:
            self.assertRegex(cpu, rf"\|=\s*{f.macro}\b", f"cpu.c never sets {f.macro}")

    def test_the_documented_names_are_the_table(self):
        names = [f.name for f in features.FEATURES]
        header = (ROOT / "runtime" / "include" / "aesgen.h").read_text()
        m = re.search(r"AESGEN_CPU_DISABLE=name,\.\.\. \(([^)]*)\)", header)
        self.assertIsNotNone(m)
        self.assertEqual([n.strip() for n in m.group(1).replace("*", "").split(",")], names)
        api = (ROOT / "docs" / "api.md").read_text()
        m = re.search(r"hides CPU features from dispatch: (.*?)\. An unknown", api, re.S)
        self.assertIsNotNone(m)
        self.assertEqual(re.findall(r"`(\w+)`", m.group(1)), names)

    def test_masks(self):
        self.assertEqual(features.c_mask([]), "AESGEN_CPU_NONE")
        self.assertEqual(features.c_mask(["avx", "avx2"]), "AESGEN_CPU_AVX | AESGEN_CPU_AVX2")


if __name__ == "__main__":
    unittest.main()
