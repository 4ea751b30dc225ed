import { operation } from '../operation.ts';
import { emptyBody } from '../../../shared/schemas/common.ts';
import {
  deleteProgramResourceResponse,
  programResource,
  programResourceCreate,
  programResourceList,
  programResourceUpdate,
  programResourceUploadTicket,
  programResourceUploadTicketCreate,
} from '../../../shared/schemas/resource.ts';

/** R1 `GET /campaign/{id}/resources`. */
export const listResources = operation({
  id: 'R1',
  name: 'resources.list',
  method: 'GET',
  path: '/campaign/:id/resources',
  access: { scopes: ['program:read'] },
  programParam: 'id',
  summary: 'List the program’s resources (files, links and texts shown to participants), ordered by position.',
  response: programResourceList,
  handler: async ({ program, deps }) => ({ resources: await deps.resources.list(program!.id) }),
});

/** R2 `POST /campaign/{id}/resources`. */
export const createResource = operation({
  id: 'R2',
  name: 'resources.create',
  method: 'POST',
  path: '/campaign/:id/resources',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'Create a resource at the end of the list: a LINK (https url), a TEXT (text) or a FILE (uploadTicket from R5 plus the upload reply, unmodified). Unpublished unless isPublished is true.',
  body: programResourceCreate,
  response: programResource,
  handler: ({ body, program, deps }) => deps.resources.create(program!.id, body),
});

/** R3 `PATCH /campaign/{id}/resources/{resourceId}`. */
export const updateResource = operation({
  id: 'R3',
  name: 'resources.update',
  method: 'PATCH',
  path: '/campaign/:id/resources/:resourceId',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'Update a resource. Switching type needs the new content with it; a FILE is replaced with uploadTicket plus uploadResult alone; position (0-based, within the list) moves it.',
  body: programResourceUpdate,
  response: programResource,
  handler: ({ body, params, program, deps }) => deps.resources.update(program!.id, params.resourceId!, body),
});

/** R4 `DELETE /campaign/{id}/resources/{resourceId}`. */
export const deleteResource = operation({
  id: 'R4',
  name: 'resources.delete',
  method: 'DELETE',
  path: '/campaign/:id/resources/:resourceId',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary: 'Delete a resource (and its stored file).',
  body: emptyBody,
  response: deleteProgramResourceResponse,
  handler: ({ params, program, deps }) => deps.resources.remove(program!.id, params.resourceId!),
});

/** R5 `POST /campaign/{id}/resource-upload-tickets`. */
export const createUploadTicket = operation({
  id: 'R5',
  name: 'resources.createUploadTicket',
  method: 'POST',
  path: '/campaign/:id/resource-upload-tickets',
  access: { scopes: ['program:write'] },
  programParam: 'id',
  summary:
    'Issue a one-time upload ticket (600 seconds) for one file of at most 10 MiB. POST the file as multipart/form-data to uploadUrl with uploadParameters as text fields and the file as field `file`; then create the FILE resource with the ticket and the reply.',
  body: programResourceUploadTicketCreate,
  response: programResourceUploadTicket,
  handler: ({ body, program, deps }) => deps.resources.createUploadTicket(program!.id, body),
});
