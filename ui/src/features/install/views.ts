// The install family's views (INST-*): the approval cards of installing, registering and
// activating a local MCP server (see ../tools/views.ts).
import type { ToolFamily, ToolViews } from "../tools/views";
import { InstallDetails, installAction } from "./InstallDetails";

const INSTALL_VIEWS: ToolViews = { Details: InstallDetails, action: installAction };

export const INSTALL: ToolFamily = {
  mcp_install_npm: INSTALL_VIEWS,
  mcp_register: INSTALL_VIEWS,
  mcp_activate_service: INSTALL_VIEWS,
};
