/* Empty translation unit: lets a layer library exist before it has sources of its own. */
typedef int fp_empty_translation_unit;
