#ifndef SP_VERSION_H
#define SP_VERSION_H
#ifndef SP_VERSION
#define SP_VERSION "0.1.0"
#endif
#ifndef SP_COMMIT
#define SP_COMMIT "unknown"
#endif
#endif
