#include "checks/net_ext.h"
void sp_transparent_plan_build(const sp_ctx *ctx, const sp_proxy_plan *proxy, unsigned egress_timeout_ms)
{
	(void)ctx; (void)proxy; (void)egress_timeout_ms;
}
void sp_transparent_plan_reset(void) {}
