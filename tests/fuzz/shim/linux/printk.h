/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fuzz shim: log messages are formatted into a scratch buffer, so that
 * the sanitizers see every byte a format string reads, and then dropped.
 */
#ifndef SHIM_LINUX_PRINTK_H
#define SHIM_LINUX_PRINTK_H

#include <stdarg.h>
#include <stdio.h>
#include <linux/compiler.h>

static inline __printf(1, 2) int shim_printk(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return n;
}

#define printk(fmt, ...)	shim_printk(fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)	shim_printk(fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	shim_printk(fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	shim_printk(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	shim_printk(fmt, ##__VA_ARGS__)

#endif
