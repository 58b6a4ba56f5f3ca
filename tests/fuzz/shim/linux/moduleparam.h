/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz shim: a module parameter is just its variable; a fuzz target that
 * includes the .c file sets it directly.
 */
#ifndef SHIM_LINUX_MODULEPARAM_H
#define SHIM_LINUX_MODULEPARAM_H

#define module_param_named(name, var, type, perm) \
	static void *shim_param_##name __maybe_unused = &(var)
#define MODULE_PARM_DESC(name, desc) \
	static const char shim_parm_desc_##name[] __maybe_unused = desc

#endif
