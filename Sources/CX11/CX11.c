#include "CX11.h"
