/* The five operation classes of a soak workload (docs/workload-format.md,
 * seed 002's composition), in their one order: X(NAME, "name"). soak/ names
 * its classes (sp_soak_class SP_CLASS_NAME) and reads a workload's mix by
 * it; evidence/ judges class_mix and scenario_classes by it. */
#ifndef SP_CORE_OP_CLASSES_H
#define SP_CORE_OP_CLASSES_H

#define SP_OP_CLASSES(X) \
	X(LIFECYCLE, "lifecycle") \
	X(SERVICE, "service") \
	X(STORAGE, "storage") \
	X(NETWORK, "network") \
	X(FAULT, "fault")

/* as a list of initialisers: {SP_OP_CLASSES(SP_OP_CLASS_NAME)} */
#define SP_OP_CLASS_NAME(name, str) str,

#endif
